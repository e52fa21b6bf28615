// Applications: listing, reading and every move of the application state machine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecruiterServer, type RecruiterTestService } from './recruiter-server';
import { client, type RawAnswer } from './http';

interface App {
  id: number;
  job_id: number;
  status: string;
}

let svc: RecruiterTestService;
let api: ReturnType<typeof client>;
/** Demo jobs of the full organization, by state: each has applications in several states. */
let activeJob: number;
let pausedJob: number;
let closedJob: number;

beforeAll(async () => {
  svc = await startRecruiterServer();
  api = client(svc.baseUrl, svc.keyOf('full'));
  const jobs = (await api('GET', '/jobs')).body.jobs as Array<{ id: number; status: string; applications_count: number }>;
  const withApps = (status: string) => jobs.find((j) => j.status === status && j.applications_count > 1)!.id;
  activeJob = withApps('active');
  pausedJob = withApps('paused');
  closedJob = withApps('closed');
});
afterAll(async () => {
  await svc.close();
});

async function apps(jobId: number, status?: string): Promise<App[]> {
  const res = await api('GET', `/jobs/${jobId}/applications${status ? `?status=${status}` : ''}`);
  expect(res.status).toBe(200);
  return res.body.applications as App[];
}

async function oneApp(jobId: number, status: string): Promise<number> {
  const found = await apps(jobId, status);
  if (!found[0]) throw new Error(`no ${status} application on job ${jobId}`);
  return found[0].id;
}

function expectIllegalMove(res: RawAnswer): void {
  expect(res.status).toBe(422);
  expect(res.body).toEqual({ error: 'validation failed', errors: { state: [expect.any(String)] } });
}

const path = (jobId: number, appId: number, suffix = '') => `/jobs/${jobId}/applications/${appId}${suffix}`;

describe('reading applications', () => {
  it('lists a job\'s applications in several states, also inside GET /jobs/:id', async () => {
    const list = await apps(activeJob);
    expect(new Set(list.map((a) => a.status))).toEqual(new Set(['pending', 'shortlisted', 'hired', 'rejected', 'work_submitted', 'work_approved']));
    for (const a of list) expect(a.job_id).toBe(activeJob);
    const job = await api('GET', `/jobs/${activeJob}`);
    expect(job.body.job.applications.map((a: App) => a.id)).toEqual(list.map((a) => a.id));
  });

  it('filters by status and refuses an unknown status', async () => {
    for (const a of await apps(activeJob, 'pending')) expect(a.status).toBe('pending');
    const bad = await api('GET', `/jobs/${activeJob}/applications?status=approved`);
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['status']);
  });

  it('reads one application with the Data Champ\'s public profile only', async () => {
    const id = await oneApp(activeJob, 'rejected');
    const res = await api('GET', path(activeJob, id));
    expect(res.status).toBe(200);
    expect(res.body.application).toMatchObject({ id, job_id: activeJob, status: 'rejected', rejection_reason: expect.any(String), data_champ_id: expect.any(Number) });
    expect(res.body.application.data_champ).toMatchObject({ id: res.body.application.data_champ_id, name: expect.any(String) });
    expect(res.body.application.data_champ).not.toHaveProperty('email');
    expect(res.body.application.data_champ).not.toHaveProperty('phone');
  });
});

describe('PATCH status', () => {
  it('shortlists a pending application and moves it back to pending', async () => {
    const id = await oneApp(activeJob, 'pending');
    const up = await api('PATCH', path(activeJob, id), { status: 'shortlisted' });
    expect(up.status).toBe(200);
    expect(up.body.application).toMatchObject({ id, status: 'shortlisted' });
    expectIllegalMove(await api('PATCH', path(activeJob, id), { status: 'shortlisted' }));
    expect((await api('PATCH', path(activeJob, id), { status: 'pending' })).body.application.status).toBe('pending');
    expectIllegalMove(await api('PATCH', path(activeJob, id), { status: 'pending' }));
  });

  it('sets no other status: 422 errors.status', async () => {
    const id = await oneApp(activeJob, 'pending');
    for (const body of [{ status: 'hired' }, { status: 'work_approved' }, { status: 42 }, {}, { state: 'shortlisted' }]) {
      const res = await api('PATCH', path(activeJob, id), body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['status']);
    }
    expect((await api('GET', path(activeJob, id))).body.application.status).toBe('pending');
  });

  it('refuses to shortlist a rejected, hired or submitted application', async () => {
    for (const status of ['rejected', 'hired', 'work_submitted', 'work_approved']) {
      expectIllegalMove(await api('PATCH', path(activeJob, await oneApp(activeJob, status)), { status: 'shortlisted' }));
    }
  });
});

describe('reject', () => {
  it('rejects with a reason, or without a body', async () => {
    const [a, b] = await apps(pausedJob, 'pending').then(async (p) => [p[0]!.id, (await oneApp(activeJob, 'shortlisted'))]);
    const withReason = await api('POST', path(pausedJob, a!, '/reject'), { reason: 'Dates do not fit.' });
    expect(withReason.status).toBe(200);
    expect(withReason.body.application).toMatchObject({ status: 'rejected', rejection_reason: 'Dates do not fit.' });
    const noBody = await api('POST', path(activeJob, b!, '/reject'));
    expect(noBody.body.application).toMatchObject({ status: 'rejected', rejection_reason: null });
  });

  it('validates the reason and refuses rejecting a rejected or submitted application', async () => {
    const pending = await oneApp(activeJob, 'pending');
    const bad = await api('POST', path(activeJob, pending, '/reject'), { reason: 12 });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['reason']);
    for (const status of ['rejected', 'work_submitted', 'work_approved']) {
      expectIllegalMove(await api('POST', path(activeJob, await oneApp(activeJob, status), '/reject'), { reason: 'x' }));
    }
  });
});

describe('accept', () => {
  it('hires pending and shortlisted applications while a position is free', async () => {
    const pending = await apps(activeJob, 'pending');
    expect(pending.length).toBeGreaterThanOrEqual(2);
    const shortlisted = (await api('PATCH', path(activeJob, pending[0]!.id), { status: 'shortlisted' })).body.application as App;
    // leave exactly one free position
    const job = (await api('GET', `/jobs/${activeJob}`)).body.job;
    await api('PUT', `/jobs/${activeJob}`, { number_of_positions: job.hired_count + 1 });
    const res = await api('POST', path(activeJob, shortlisted.id, '/accept'));
    expect(res.status).toBe(200);
    expect(res.body.application).toMatchObject({ id: shortlisted.id, status: 'hired' });
    const full = await api('POST', path(activeJob, pending[1]!.id, '/accept'));
    expectIllegalMove(full);
    expect(full.body.errors.state[0]).toContain('positions');
    expect((await api('GET', path(activeJob, pending[1]!.id))).body.application.status).toBe('pending');
    await api('PUT', `/jobs/${activeJob}`, { number_of_positions: job.hired_count + 2 });
    expect((await api('POST', path(activeJob, pending[1]!.id, '/accept'))).body.application.status).toBe('hired');
  });

  it('refuses to accept hired, rejected and submitted applications', async () => {
    for (const status of ['hired', 'rejected', 'work_submitted', 'work_approved']) {
      expectIllegalMove(await api('POST', path(activeJob, await oneApp(activeJob, status), '/accept')));
    }
  });
});

describe('approve-work', () => {
  it('approves submitted work, also on a paused job', async () => {
    for (const jobId of [activeJob, pausedJob]) {
      const id = await oneApp(jobId, 'work_submitted');
      const res = await api('POST', path(jobId, id, '/approve-work'));
      expect(res.status).toBe(200);
      expect(res.body.application).toMatchObject({ id, status: 'work_approved' });
    }
  });

  it('refuses to approve work that was not submitted', async () => {
    for (const status of ['hired', 'rejected', 'work_approved']) {
      expectIllegalMove(await api('POST', path(activeJob, await oneApp(activeJob, status), '/approve-work')));
    }
  });
});

describe('applications of a closed job', () => {
  it('refuses every move', async () => {
    const before = await apps(closedJob);
    const pending = await oneApp(closedJob, 'pending');
    const submitted = await oneApp(closedJob, 'work_submitted');
    expectIllegalMove(await api('POST', path(closedJob, pending, '/accept')));
    expectIllegalMove(await api('POST', path(closedJob, pending, '/reject'), { reason: 'closed' }));
    expectIllegalMove(await api('PATCH', path(closedJob, pending), { status: 'shortlisted' }));
    expectIllegalMove(await api('POST', path(closedJob, submitted, '/approve-work')));
    expect(await apps(closedJob)).toEqual(before);
  });
});

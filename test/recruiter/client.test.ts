// The typed recruiter client against the running reference service: every method, typed
// errors, tolerated alternatives and malformed answers (injected by the service's body fault).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closedLoopbackPort } from '../support/closed-port';
import { ApiError } from '../../src-main/api/errors';
import { BaseUrlError } from '../../src-main/api/base-url';
import { parseFieldErrors } from '../../src-main/api/http';
import { createRecruiterClient, type RecruiterClient } from '../../src-main/api/recruiter-client';
import { startRecruiterServer, type RecruiterTestService } from './recruiter-server';
import { VALID_JOB } from './http';

let svc: RecruiterTestService;
let full: RecruiterClient;
const opened: RecruiterClient[] = [];

function clientFor(apiKey: string): RecruiterClient {
  const c = createRecruiterClient({ baseUrl: svc.baseUrl, apiKey });
  opened.push(c);
  return c;
}

/** The ApiError a call fails with; fails the test when it succeeds or throws something else. */
async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    for (const org of svc.organizations) expect((err as Error).message).not.toContain(org.apiKey);
    return err as ApiError;
  }
  throw new Error('expected the call to fail');
}

beforeAll(async () => {
  svc = await startRecruiterServer();
  full = clientFor(svc.keyOf('full'));
});
afterEach(async () => {
  await svc.admin.clearFaults();
});
afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await svc.close();
});

describe('construction', () => {
  it('refuses plain http to a remote host and an empty key, without echoing the key', () => {
    expect(() => createRecruiterClient({ baseUrl: 'http://example.com/api/v1/recruiter', apiKey: 'k' })).toThrow(BaseUrlError);
    expect(() => createRecruiterClient({ baseUrl: svc.baseUrl, apiKey: '  ' })).toThrow(ApiError);
    expect(createRecruiterClient({ baseUrl: `${svc.baseUrl}/`, apiKey: 'k' }).baseUrl).toBe(svc.baseUrl);
  });
});

describe('methods', () => {
  it('me() returns the organization and the key\'s scopes', async () => {
    const me = await full.me();
    expect(me.organization).toEqual({ id: expect.any(Number), name: 'Acme Field Research' });
    expect(me.key.scopes).toEqual(['jobs:read', 'jobs:write', 'data_champs:read']);
    expect(svc.keyOf('full').startsWith(me.key.prefix ?? '-')).toBe(true);
    expect((await clientFor(svc.keyOf('discovery')).me()).key.scopes).toEqual(['data_champs:read']);
  });

  it('runs a job through create, get, update, publish, pause, resume and close', async () => {
    const job = await full.createJob(VALID_JOB);
    expect(job).toMatchObject({ title: VALID_JOB.title, status: 'draft', rate: '120.50', required_skills: ['photography', 'retail'], number_of_positions: 3 });
    expect(await full.getJob(job.id)).toMatchObject({ id: job.id, applications: [] });
    expect(await full.updateJob(job.id, { title: 'Renamed' })).toMatchObject({ title: 'Renamed', description: VALID_JOB.description });
    expect((await full.publishJob(job.id)).status).toBe('active');
    expect((await full.pauseJob(job.id)).status).toBe('paused');
    expect((await full.resumeJob(String(job.id))).status).toBe('active');
    expect((await full.closeJob(job.id)).status).toBe('closed');
  });

  it('lists jobs page by page and by status', async () => {
    const first = await full.listJobs({ per_page: 2 });
    expect(first).toMatchObject({ page: 1, per_page: 2, has_more: true });
    expect(first.jobs).toHaveLength(2);
    const second = await full.listJobs({ per_page: 2, page: 2 });
    expect(second.jobs[0]!.id).not.toBe(first.jobs[0]!.id);
    const paused = await full.listJobs({ status: 'paused' });
    expect(paused.jobs.length).toBeGreaterThan(0);
    for (const j of paused.jobs) expect(j.status).toBe('paused');
  });

  it('reads and moves applications: shortlist, accept, reject with a reason, approve work', async () => {
    const active = (await full.listJobs({ status: 'active' })).jobs.find((j) => j.id === 1)!;
    const detail = await full.getJob(active.id);
    expect(detail.applications.length).toBeGreaterThan(3);
    const apps = await full.listApplications(active.id);
    expect(apps.map((a) => a.id)).toEqual(detail.applications.map((a) => a.id));
    const pending = await full.listApplications(active.id, { status: 'pending' });
    expect(pending.length).toBeGreaterThanOrEqual(2);
    const one = await full.getApplication(active.id, pending[0]!.id);
    expect(one).toMatchObject({ id: pending[0]!.id, job_id: active.id, status: 'pending', data_champ: { id: one.data_champ_id } });

    expect((await full.updateApplicationStatus(active.id, one.id, 'shortlisted')).status).toBe('shortlisted');
    expect((await full.acceptApplication(active.id, one.id)).status).toBe('hired');
    expect(await full.rejectApplication(active.id, pending[1]!.id, 'Too far away')).toMatchObject({ status: 'rejected', rejection_reason: 'Too far away' });
    const submitted = (await full.listApplications(active.id, { status: 'work_submitted' }))[0]!;
    expect((await full.approveWork(active.id, submitted.id)).status).toBe('work_approved');
    const hired = (await full.listApplications(active.id, { status: 'hired' }))[0]!;
    expect(await full.rejectApplication(active.id, hired.id)).toMatchObject({ status: 'rejected', rejection_reason: null });
  });

  it('searches Data Champs with filters, reads a profile and gets matches', async () => {
    const scouts = clientFor(svc.keyOf('discovery'));
    const page = await scouts.searchDataChamps();
    expect(page).toMatchObject({ page: 1, per_page: 25, total: 200, has_more: true });
    const filtered = await scouts.searchDataChamps({ skills: ['survey', 'smartphone'], verified_only: true, availability: 'available', max_rate: 300, per_page: 100 });
    expect(filtered.data_champs.length).toBeGreaterThan(0);
    for (const c of filtered.data_champs) {
      expect(c.skills).toEqual(expect.arrayContaining(['survey', 'smartphone']));
      expect(c).toMatchObject({ verified: true, availability: 'available' });
      expect(Number(c.daily_rate)).toBeLessThanOrEqual(300);
    }
    const located = await scouts.searchDataChamps({ location: 'bavaria', country: 'Germany', search: 'a', min_rate: 1 });
    for (const c of located.data_champs) expect(c.region).toBe('Bavaria');
    const profile = await scouts.getDataChamp(filtered.data_champs[0]!.id);
    expect(profile).toEqual(filtered.data_champs[0]);
    const matches = await full.getMatches(1, { limit: 5 });
    expect(matches).toHaveLength(5);
    expect(matches[0]!.score).toBeGreaterThanOrEqual(matches[4]!.score);
    expect(matches[0]!.reasons.length).toBeGreaterThan(0);
  });
});

describe('typed errors', () => {
  it('auth: an unknown key', async () => {
    const bogus = 'rk_live_not-a-real-key-0123456789';
    const err = await failure(clientFor(bogus).me());
    expect(err).toMatchObject({ kind: 'auth', status: 401 });
    expect(err.message).not.toContain(bogus);
  });

  it('forbidden: a missing scope and another organization\'s job', async () => {
    expect(await failure(clientFor(svc.keyOf('readOnly')).createJob(VALID_JOB))).toMatchObject({ kind: 'forbidden', status: 403 });
    expect(await failure(clientFor(svc.keyOf('readOnly')).searchDataChamps())).toMatchObject({ kind: 'forbidden' });
    const theirs = (await clientFor(svc.keyOf('otherFull')).listJobs()).jobs[0]!;
    expect(await failure(full.getJob(theirs.id))).toMatchObject({ kind: 'forbidden', status: 403 });
  });

  it('validation: field errors of a bad create and of an illegal move', async () => {
    const err = await failure(full.createJob({ ...VALID_JOB, rate: '0', currency: 'EURO' }));
    expect(err).toMatchObject({ kind: 'validation', status: 422 });
    expect(Object.keys(err.fieldErrors ?? {}).sort()).toEqual(['currency', 'rate']);
    expect(err.message).toContain('rate');
    const draft = await full.createJob(VALID_JOB);
    const move = await failure(full.pauseJob(draft.id));
    expect(move.kind).toBe('validation');
    expect(move.fieldErrors?.state).toEqual([expect.stringContaining('active')]);
  });

  it('not_found: unknown job, application and Data Champ', async () => {
    expect(await failure(full.getJob(999999))).toMatchObject({ kind: 'not_found', status: 404 });
    expect(await failure(full.getApplication(1, 999999))).toMatchObject({ kind: 'not_found' });
    expect(await failure(full.getDataChamp(999999))).toMatchObject({ kind: 'not_found' });
  });

  it('network: nothing listening', async () => {
    const port = await closedLoopbackPort();
    const c = createRecruiterClient({ baseUrl: `http://127.0.0.1:${port}/api/v1/recruiter`, apiKey: svc.keyOf('full') });
    opened.push(c);
    const err = await failure(c.me());
    expect(err.kind).toBe('network');
    expect(err.retryable).toBe(true);
  });
});

describe('answers the spec leaves open', () => {
  const jobsPath = { api: 'recruiter' as const, path: '^/jobs$' };
  const bareJob = { id: '77', title: 't', job_type: 'survey', rate: 12.5, currency: 'EUR', number_of_positions: 1, status: 'active', required_skills: 'a,b', extra: true };

  it('accepts a bare list, string ids, numeric rates and comma-separated skills', async () => {
    await svc.admin.addFault(jobsPath, { type: 'body', body: JSON.stringify([bareJob]) }, 1);
    const page = await full.listJobs();
    expect(page).toMatchObject({ page: 1, total: 1, has_more: false });
    expect(page.jobs[0]).toMatchObject({ id: 77, rate: '12.5', required_skills: ['a', 'b'], location_type: null, description: '' });
  });

  it('re-reads the resource when a move answers 204 without a body', async () => {
    const draft = await full.createJob(VALID_JOB);
    await svc.admin.addFault({ api: 'recruiter', path: `^/jobs/${draft.id}/publish$` }, { type: 'body', status: 204, body: '' }, 1);
    // the fault replaces the answer, so the job is not actually published: the re-read shows the truth
    expect(await full.publishJob(draft.id)).toMatchObject({ id: draft.id, status: 'draft' });
  });

  it('parses 422 errors given as an array of {field, message} or as an object of strings', async () => {
    await svc.admin.addFault(jobsPath, { type: 'body', status: 422, body: JSON.stringify({ errors: [{ field: 'title', message: 'is required' }, { field: 'title', message: 'is short' }] }) }, 1);
    expect((await failure(full.createJob(VALID_JOB))).fieldErrors).toEqual({ title: ['is required', 'is short'] });
    await svc.admin.addFault(jobsPath, { type: 'body', status: 422, body: JSON.stringify({ errors: { rate: 'must be > 0' } }) }, 1);
    expect((await failure(full.createJob(VALID_JOB))).fieldErrors).toEqual({ rate: ['must be > 0'] });
  });

  it('parseFieldErrors handles every shape', () => {
    expect(parseFieldErrors({ a: ['x', 'y'], b: 'z', c: [{ message: 'm' }] })).toEqual({ a: ['x', 'y'], b: ['z'], c: ['m'] });
    expect(parseFieldErrors([{ field: 'a', messages: ['x'] }, 'loose'])).toEqual({ a: ['x'], base: ['loose'] });
    expect(parseFieldErrors('whole thing')).toEqual({ base: ['whole thing'] });
    expect(parseFieldErrors(undefined)).toEqual({});
  });
});

describe('malformed answers', () => {
  const jobsPath = { api: 'recruiter' as const, path: '^/jobs$' };
  it.each([
    ['a wrong type for the list', '{"jobs": 5}'],
    ['a job without an id', '{"jobs": [{"title": "x"}], "page": 1, "per_page": 25, "total": 1, "has_more": false}'],
    ['a non-numeric total', '{"jobs": [], "page": 1, "per_page": 25, "total": "many", "has_more": false}'],
    ['a body that is not JSON', '<html>oops</html>'],
    ['a JSON string', '"jobs"'],
  ])('GET /jobs with %s is ApiError malformed', async (_what, body) => {
    await svc.admin.addFault(jobsPath, { type: 'body', body }, 1);
    const err = await failure(full.listJobs());
    expect(err.kind).toBe('malformed');
    expect(err.message).toContain('/jobs');
  });

  it('a created job without the fields the client needs is malformed', async () => {
    await svc.admin.addFault({ ...jobsPath, method: 'POST' }, { type: 'body', status: 201, body: '{"job": {"id": 1}}' }, 1);
    expect((await failure(full.createJob(VALID_JOB))).kind).toBe('malformed');
  });

  it('a 500 is a retryable server error', async () => {
    await svc.admin.addFault(jobsPath, { type: 'status', status: 503 }, 1);
    const err = await failure(full.listJobs());
    expect(err).toMatchObject({ kind: 'server', status: 503 });
    expect(err.retryable).toBe(true);
  });
});

// Jobs: create and its validation, partial update, the state machine and listing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecruiterServer, type RecruiterTestService } from './recruiter-server';
import { client, VALID_JOB, type RawAnswer } from './http';

let svc: RecruiterTestService;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  svc = await startRecruiterServer();
  api = client(svc.baseUrl, svc.keyOf('full'));
});
afterAll(async () => {
  await svc.close();
});

async function createDraft(overrides: Record<string, unknown> = {}): Promise<number> {
  const res = await api('POST', '/jobs', { ...VALID_JOB, ...overrides });
  expect(res.status).toBe(201);
  return res.body.job.id as number;
}

function expectIllegalMove(res: RawAnswer): void {
  expect(res.status).toBe(422);
  expect(res.body).toEqual({ error: 'validation failed', errors: { state: [expect.any(String)] } });
}

describe('POST /jobs', () => {
  it('creates a draft and answers 201 {job} with the normalised fields', async () => {
    const res = await api('POST', '/jobs', { ...VALID_JOB, currency: 'eur', rate: '99.5', required_skills: ['Photography', 'photography'], extra: 'ignored' });
    expect(res.status).toBe(201);
    expect(res.body.job).toMatchObject({
      id: expect.any(Number),
      title: VALID_JOB.title,
      description: VALID_JOB.description,
      job_type: 'photo_survey',
      location_type: 'on_site',
      rate: '99.50',
      rate_type: 'daily',
      currency: 'EUR',
      number_of_positions: 3,
      required_skills: ['photography'],
      status: 'draft',
      published_at: null,
      closed_at: null,
    });
    expect(res.body.job).not.toHaveProperty('extra');
    const read = await api('GET', `/jobs/${res.body.job.id}`);
    expect(read.body.job).toMatchObject({ ...res.body.job, applications: [] });
  });

  it('defaults required_skills to [] and accepts every location_type, rate_type and job_type', async () => {
    const { required_skills: _omit, ...noSkills } = VALID_JOB;
    expect((await api('POST', '/jobs', noSkills)).body.job.required_skills).toEqual([]);
    for (const location_type of ['on_site', 'remote', 'hybrid']) expect((await api('POST', '/jobs', { ...VALID_JOB, location_type })).status).toBe(201);
    for (const rate_type of ['daily', 'hourly', 'fixed']) expect((await api('POST', '/jobs', { ...VALID_JOB, rate_type })).status).toBe(201);
    for (const job_type of ['survey', 'audit', 'labeling', 'annotation', 'custom', 'transcription', 'verification', 'voice_recording', 'photo_survey', 'data_entry', 'analytics']) {
      expect((await api('POST', '/jobs', { ...VALID_JOB, job_type })).status, job_type).toBe(201);
    }
  });

  it('names every missing required field in one 422', async () => {
    const res = await api('POST', '/jobs', {});
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('validation failed');
    expect(Object.keys(res.body.errors).sort()).toEqual(
      ['currency', 'description', 'job_type', 'location_type', 'number_of_positions', 'rate', 'rate_type', 'title'],
    );
    for (const messages of Object.values(res.body.errors)) expect(messages).toEqual(['is required']);
  });

  it.each([
    ['title', ''],
    ['title', 42],
    ['description', '   '],
    ['job_type', 'gardening'],
    ['location_type', 'moon'],
    ['rate_type', 'weekly'],
    ['rate', '0'],
    ['rate', '-5'],
    ['rate', 150],
    ['rate', '12.345'],
    ['rate', 'abc'],
    ['currency', 'EURO'],
    ['currency', 'E1R'],
    ['number_of_positions', 0],
    ['number_of_positions', 1.5],
    ['number_of_positions', '3'],
    ['required_skills', 'photography'],
    ['required_skills', [1, 2]],
  ])('refuses %s = %j with errors.%s', async (field, value) => {
    const res = await api('POST', '/jobs', { ...VALID_JOB, [field]: value });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'validation failed', errors: { [field]: [expect.any(String)] } });
  });
});

describe('PUT /jobs/:id', () => {
  it('is a partial update: fields left out keep their value', async () => {
    const id = await createDraft();
    const res = await api('PUT', `/jobs/${id}`, { title: 'New title', rate: '130' });
    expect(res.status).toBe(200);
    expect(res.body.job).toMatchObject({ id, title: 'New title', rate: '130.00', description: VALID_JOB.description, status: 'draft' });
  });

  it('validates the fields it gets and refuses an empty change', async () => {
    const id = await createDraft();
    const bad = await api('PUT', `/jobs/${id}`, { number_of_positions: -1, title: 'ok' });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['number_of_positions']);
    expect((await api('GET', `/jobs/${id}`)).body.job.title).toBe(VALID_JOB.title);
    const empty = await api('PUT', `/jobs/${id}`, {});
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.errors)).toEqual(['body']);
  });

  it('updates active and paused jobs too', async () => {
    const id = await createDraft();
    await api('POST', `/jobs/${id}/publish`);
    expect((await api('PUT', `/jobs/${id}`, { title: 'Active edit' })).body.job).toMatchObject({ title: 'Active edit', status: 'active' });
    await api('POST', `/jobs/${id}/pause`);
    expect((await api('PUT', `/jobs/${id}`, { title: 'Paused edit' })).body.job).toMatchObject({ title: 'Paused edit', status: 'paused' });
  });
});

describe('job state machine', () => {
  it('runs the full lifecycle draft -> active -> paused -> active -> closed', async () => {
    const id = await createDraft();
    const publish = await api('POST', `/jobs/${id}/publish`);
    expect(publish.status).toBe(200);
    expect(publish.body.job).toMatchObject({ id, status: 'active', published_at: expect.any(String) });
    expect((await api('POST', `/jobs/${id}/pause`)).body.job.status).toBe('paused');
    expect((await api('POST', `/jobs/${id}/resume`)).body.job.status).toBe('active');
    const closed = await api('POST', `/jobs/${id}/close`);
    expect(closed.body.job).toMatchObject({ status: 'closed', closed_at: expect.any(String) });
    expect((await api('GET', `/jobs/${id}`)).body.job.status).toBe('closed');
  });

  it('closes from draft and from paused', async () => {
    const draft = await createDraft();
    expect((await api('POST', `/jobs/${draft}/close`)).body.job.status).toBe('closed');
    const paused = await createDraft();
    await api('POST', `/jobs/${paused}/publish`);
    await api('POST', `/jobs/${paused}/pause`);
    expect((await api('POST', `/jobs/${paused}/close`)).body.job.status).toBe('closed');
  });

  it('refuses every illegal move with 422 errors.state and leaves the job as it was', async () => {
    const draft = await createDraft();
    for (const action of ['pause', 'resume']) expectIllegalMove(await api('POST', `/jobs/${draft}/${action}`));
    expect((await api('GET', `/jobs/${draft}`)).body.job.status).toBe('draft');

    const active = await createDraft();
    await api('POST', `/jobs/${active}/publish`);
    for (const action of ['publish', 'resume']) expectIllegalMove(await api('POST', `/jobs/${active}/${action}`));
    expect((await api('GET', `/jobs/${active}`)).body.job.status).toBe('active');

    await api('POST', `/jobs/${active}/pause`);
    for (const action of ['publish', 'pause']) expectIllegalMove(await api('POST', `/jobs/${active}/${action}`));
    expect((await api('GET', `/jobs/${active}`)).body.job.status).toBe('paused');
  });

  it('refuses every move and update on a closed job: closing is permanent', async () => {
    const id = await createDraft();
    await api('POST', `/jobs/${id}/close`);
    for (const action of ['publish', 'pause', 'resume', 'close']) expectIllegalMove(await api('POST', `/jobs/${id}/${action}`));
    expectIllegalMove(await api('PUT', `/jobs/${id}`, { title: 'Reopen?' }));
    expect((await api('GET', `/jobs/${id}`)).body.job).toMatchObject({ status: 'closed', title: VALID_JOB.title });
  });
});

describe('GET /jobs', () => {
  it('pages the organization\'s jobs with page, per_page, total and has_more', async () => {
    const all = await api('GET', '/jobs?per_page=100');
    const total = all.body.total as number;
    expect(all.body.jobs).toHaveLength(total);
    expect(total).toBeGreaterThan(3);
    const first = await api('GET', '/jobs?per_page=2');
    expect(first.body).toMatchObject({ page: 1, per_page: 2, total, has_more: true });
    const second = await api('GET', '/jobs?per_page=2&page=2');
    expect(second.body.jobs.map((j: { id: number }) => j.id)).toEqual(all.body.jobs.slice(2, 4).map((j: { id: number }) => j.id));
    const last = await api('GET', `/jobs?per_page=2&page=${Math.ceil(total / 2)}`);
    expect(last.body.has_more).toBe(false);
    const beyond = await api('GET', '/jobs?per_page=2&page=999');
    expect(beyond.body).toMatchObject({ jobs: [], has_more: false, total });
    expect((await api('GET', '/jobs')).body.per_page).toBe(25);
  });

  it('filters by status, and the demo data holds jobs in every state', async () => {
    for (const status of ['draft', 'active', 'paused', 'closed']) {
      const res = await api('GET', `/jobs?status=${status}`);
      expect(res.body.jobs.length, status).toBeGreaterThan(0);
      for (const job of res.body.jobs) expect(job.status).toBe(status);
    }
  });

  it('refuses bad paging and status values with 422 naming each', async () => {
    const res = await api('GET', '/jobs?page=0&per_page=101&status=open');
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['page', 'per_page', 'status']);
  });
});

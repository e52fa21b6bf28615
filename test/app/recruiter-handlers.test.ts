// The recruiter IPC handlers against the real reference service over loopback HTTP: connect
// (good, wrong and read-only keys), jobs and their lifecycle, 422 field errors, applications,
// Data Champ search and matches, argument validation of every channel, and that no recruiter
// key ever appears in an answer.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IpcResult } from '../../src-shared/ipc-contract';
import { RecruiterConnection } from '../../src-main/app/recruiter-connection';
import { createRecruiterHandlers, type RecruiterHandlers } from '../../src-main/ipc/recruiter-handlers';
import type { Application, Job, JobDetail, RecruiterConnectionInfo, RecruiterInvokeChannel } from '../../src-shared/recruiter-ipc-contract';
import { createMemoryStore } from '../../src-main/secrets/memory-store';
import type { SecretStore } from '../../src-main/secrets/secret-store';
import { createConfSettingsStore } from '../../src-main/settings/conf-settings';
import type { SettingsStore } from '../../src-main/settings/settings-store';
import { startRecruiterServer, type RecruiterTestService } from '../recruiter/recruiter-server';

const DELIVERY_BASE_URL = 'http://127.0.0.1:9/api/v1/partner';
const DELIVERY_KEY = 'dsk_delivery_key_kept_apart_0001';

let service: RecruiterTestService;
let root: string;
const results: unknown[] = [];

interface Harness {
  handlers: RecruiterHandlers;
  secrets: SecretStore;
  settings: SettingsStore;
}

let count = 0;
function harness(): Harness {
  const settings = createConfSettingsStore({ cwd: join(root, `h${++count}`) });
  settings.setBaseUrl(DELIVERY_BASE_URL);
  const secrets = createMemoryStore({ [DELIVERY_BASE_URL]: DELIVERY_KEY });
  return { handlers: createRecruiterHandlers({ recruiter: new RecruiterConnection({ secrets, settings }), otherSecretsToRedact: () => [DELIVERY_KEY] }), secrets, settings };
}

async function call<T>(h: Harness, channel: RecruiterInvokeChannel, arg?: unknown): Promise<IpcResult<T>> {
  const result = (await h.handlers[channel](arg)) as IpcResult<T>;
  // What would cross the bridge: kept for the key-leak check at the end.
  results.push(JSON.parse(JSON.stringify(result)));
  return result;
}

async function value<T>(h: Harness, channel: RecruiterInvokeChannel, arg?: unknown): Promise<T> {
  const result = await call<T>(h, channel, arg);
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.kind}: ${result.error.message}`);
  return result.value;
}

async function failure(h: Harness, channel: RecruiterInvokeChannel, arg?: unknown) {
  const result = await call(h, channel, arg);
  if (result.ok) throw new Error(`${channel} unexpectedly succeeded`);
  return result.error;
}

let acme: Harness;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'recruiter-handlers-'));
  service = await startRecruiterServer(11);
  acme = harness();
});

afterAll(async () => {
  await service?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const VALID_JOB = {
  title: 'Doorway photo survey',
  description: 'Photograph shop entrances on a given route.',
  job_type: 'photo_survey',
  location_type: 'on_site',
  rate: '130',
  rate_type: 'daily',
  currency: 'eur',
  number_of_positions: 3,
  required_skills: ['photography', 'smartphone'],
};

describe('recruiter connection', () => {
  it('is not connected at first, and recruiter calls say so', async () => {
    const h = harness();
    expect(await value(h, 'recruiter:connection:get')).toBeNull();
    expect((await failure(h, 'recruiter:jobs:list', {})).kind).toBe('not_connected');
  });

  it('refuses a wrong key and keeps nothing', async () => {
    const h = harness();
    const error = await failure(h, 'recruiter:connect', { baseUrl: service.baseUrl, apiKey: 'rk_live_wrong0000000000000000' });
    expect(error.kind).toBe('auth');
    expect(await h.secrets.get(service.baseUrl)).toBeNull();
    expect(h.settings.recruiterBaseUrl()).toBeNull();
  });

  it('connects with a good key: organization and key details, the key stored under the recruiter URL only', async () => {
    const info = await value<RecruiterConnectionInfo>(acme, 'recruiter:connect', { baseUrl: service.baseUrl, apiKey: service.keyOf('full') });
    expect(info.organization.name).toBe('Acme Field Research');
    expect(info.key.name).toBe('acme-integration');
    expect(info.key.prefix).toBe(service.keyOf('full').slice(0, 12));
    expect(info.key.scopes).toEqual(expect.arrayContaining(['jobs:read', 'jobs:write', 'data_champs:read']));
    expect(info.secretStore).toBe('memory');
    expect(await acme.secrets.get(service.baseUrl)).toBe(service.keyOf('full'));
    expect(await acme.secrets.get(DELIVERY_BASE_URL)).toBe(DELIVERY_KEY);
    expect(acme.settings.recruiterBaseUrl()).toBe(service.baseUrl);
    expect(acme.settings.activeAccount()?.baseUrl).toBe(DELIVERY_BASE_URL);
    expect(await value(acme, 'recruiter:connection:get')).toEqual(info);
  });

  it('picks the stored key up again in a fresh process (handlers over the same settings and secrets)', async () => {
    const again = { ...acme, handlers: createRecruiterHandlers({ recruiter: new RecruiterConnection({ secrets: acme.secrets, settings: acme.settings }) }) };
    const info = await value<RecruiterConnectionInfo>(again, 'recruiter:connection:get');
    expect(info.organization.name).toBe('Acme Field Research');
  });

  it('refuses the delivery address as the recruiter address, so the delivery key is never overwritten', async () => {
    const h = harness();
    const error = await failure(h, 'recruiter:connect', { baseUrl: DELIVERY_BASE_URL, apiKey: service.keyOf('full') });
    expect(error.kind).toBe('base_url');
    expect(await h.secrets.get(DELIVERY_BASE_URL)).toBe(DELIVERY_KEY);
  });

  it('forget removes the recruiter key and leaves the delivery key', async () => {
    const h = harness();
    await value(h, 'recruiter:connect', { baseUrl: service.baseUrl, apiKey: service.keyOf('otherFull') });
    expect(await value(h, 'recruiter:forget')).toBeNull();
    expect(await value(h, 'recruiter:connection:get')).toBeNull();
    expect(await h.secrets.get(service.baseUrl)).toBeNull();
    expect(await h.secrets.get(DELIVERY_BASE_URL)).toBe(DELIVERY_KEY);
  });

  it("a read-only key reads jobs, and a write shows a forbidden error naming the missing scope", async () => {
    const h = harness();
    const info = await value<RecruiterConnectionInfo>(h, 'recruiter:connect', { baseUrl: service.baseUrl, apiKey: service.keyOf('readOnly') });
    expect(info.key.scopes).toEqual(['jobs:read']);
    const page = await value<{ jobs: Job[] }>(h, 'recruiter:jobs:list', {});
    expect(page.jobs.length).toBeGreaterThan(0);
    const error = await failure(h, 'recruiter:jobs:create', { job: VALID_JOB });
    expect(error.kind).toBe('forbidden');
    expect(error.message).toContain('lacks the jobs:write scope needed to create jobs');
    const search = await failure(h, 'recruiter:champs:search', {});
    expect(search.kind).toBe('forbidden');
    expect(search.message).toContain('data_champs:read');
  });

  it("another organization's job is forbidden without blaming a scope", async () => {
    const other = harness();
    await value(other, 'recruiter:connect', { baseUrl: service.baseUrl, apiKey: service.keyOf('otherFull') });
    const acmeJobs = await value<{ jobs: Job[] }>(acme, 'recruiter:jobs:list', {});
    const error = await failure(other, 'recruiter:jobs:get', { jobId: acmeJobs.jobs[0]!.id });
    expect(error.kind).toBe('forbidden');
    expect(error.message).toMatch(/^Access denied: the resource belongs to another organization/);
  });
});

describe('jobs', () => {
  it('lists with pagination and a status filter', async () => {
    const all = await value<{ jobs: Job[]; total: number; page: number }>(acme, 'recruiter:jobs:list', { page: 1, perPage: 2 });
    expect(all.jobs).toHaveLength(2);
    expect(all.total).toBeGreaterThanOrEqual(5);
    const active = await value<{ jobs: Job[] }>(acme, 'recruiter:jobs:list', { status: 'active' });
    expect(active.jobs.length).toBeGreaterThan(0);
    for (const job of active.jobs) expect(job.status).toBe('active');
  });

  it('create with invalid fields answers validation with field errors', async () => {
    const error = await failure(acme, 'recruiter:jobs:create', {
      job: { ...VALID_JOB, title: '  ', rate: '-5', currency: 'EURO', number_of_positions: 5000 },
    });
    expect(error.kind).toBe('validation');
    expect(Object.keys(error.fieldErrors ?? {}).sort()).toEqual(['currency', 'number_of_positions', 'rate', 'title']);
    expect(error.fieldErrors?.number_of_positions?.[0]).toContain('1 to 1000');
  });

  it('runs the lifecycle draft -> active -> paused -> active -> closed, and refuses an illegal move', async () => {
    const created = await value<Job>(acme, 'recruiter:jobs:create', { job: VALID_JOB });
    expect(created.status).toBe('draft');
    expect(created.currency).toBe('EUR');
    const jobId = created.id;
    const edited = await value<Job>(acme, 'recruiter:jobs:update', { jobId, changes: { title: 'Doorway photo survey (Berlin)', number_of_positions: 4 } });
    expect(edited.title).toBe('Doorway photo survey (Berlin)');
    expect(edited.number_of_positions).toBe(4);
    expect((await value<Job>(acme, 'recruiter:jobs:publish', { jobId })).status).toBe('active');
    expect((await value<Job>(acme, 'recruiter:jobs:pause', { jobId })).status).toBe('paused');
    expect((await value<Job>(acme, 'recruiter:jobs:resume', { jobId })).status).toBe('active');
    expect((await value<Job>(acme, 'recruiter:jobs:close', { jobId })).status).toBe('closed');
    const again = await failure(acme, 'recruiter:jobs:publish', { jobId });
    expect(again.kind).toBe('validation');
    expect(again.fieldErrors?.state).toBeDefined();
    const detail = await value<JobDetail>(acme, 'recruiter:jobs:get', { jobId });
    expect(detail.status).toBe('closed');
    expect(detail.applications).toEqual([]);
    expect((await failure(acme, 'recruiter:jobs:get', { jobId: 999_999 })).kind).toBe('not_found');
  });
});

describe('applications', () => {
  let job: JobDetail;
  const withStatus = (status: string) => {
    const app = job.applications.find((a) => a.status === status);
    if (!app) throw new Error(`no ${status} application in the demo job`);
    return app;
  };

  beforeAll(async () => {
    const page = await value<{ jobs: Job[] }>(acme, 'recruiter:jobs:list', { status: 'active' });
    const survey = page.jobs.find((j) => j.title === 'Street survey in Berlin')!;
    job = await value<JobDetail>(acme, 'recruiter:jobs:get', { jobId: survey.id });
  });

  it('lists, filters and reads applications with their Data Champs', async () => {
    const apps = await value<Application[]>(acme, 'recruiter:applications:list', { jobId: job.id });
    expect(apps.length).toBe(job.applications.length);
    const pending = await value<Application[]>(acme, 'recruiter:applications:list', { jobId: job.id, status: 'pending' });
    expect(pending.length).toBeGreaterThan(0);
    for (const a of pending) expect(a.status).toBe('pending');
    const one = await value<Application>(acme, 'recruiter:applications:get', { jobId: job.id, applicationId: pending[0]!.id });
    expect(one.id).toBe(pending[0]!.id);
    expect(one.data_champ?.name).toBeTruthy();
  });

  it('shortlists, hires, rejects with a reason and approves work', async () => {
    const [first, second] = job.applications.filter((a) => a.status === 'pending');
    const shortlisted = await value<Application>(acme, 'recruiter:applications:setStatus', { jobId: job.id, applicationId: first!.id, status: 'shortlisted' });
    expect(shortlisted.status).toBe('shortlisted');
    const hired = await value<Application>(acme, 'recruiter:applications:accept', { jobId: job.id, applicationId: first!.id });
    expect(hired.status).toBe('hired');
    const rejected = await value<Application>(acme, 'recruiter:applications:reject', { jobId: job.id, applicationId: second!.id, reason: 'Not in Berlin on the dates.' });
    expect(rejected.status).toBe('rejected');
    expect(rejected.rejection_reason).toBe('Not in Berlin on the dates.');
    const approved = await value<Application>(acme, 'recruiter:applications:approveWork', { jobId: job.id, applicationId: withStatus('work_submitted').id });
    expect(approved.status).toBe('work_approved');
    // Approving twice is an illegal move: a 422 with field errors, not a crash.
    const twice = await failure(acme, 'recruiter:applications:approveWork', { jobId: job.id, applicationId: approved.id });
    expect(twice.kind).toBe('validation');
    expect(twice.fieldErrors).toBeDefined();
  });
});

describe('Data Champs', () => {
  it('searches with every filter and pages', async () => {
    const first = await value<{ data_champs: Array<{ id: number }>; total: number; has_more: boolean; page: number }>(acme, 'recruiter:champs:search', { page: 1, perPage: 10 });
    expect(first.data_champs).toHaveLength(10);
    expect(first.has_more).toBe(true);
    const second = await value<{ data_champs: Array<{ id: number }>; page: number }>(acme, 'recruiter:champs:search', { page: 2, perPage: 10 });
    expect(second.page).toBe(2);
    expect(second.data_champs[0]!.id).not.toBe(first.data_champs[0]!.id);

    type Champ = { skills: string[]; country: string | null; availability: string | null; verified: boolean; daily_rate: string | null };
    const filtered = await value<{ data_champs: Champ[] }>(acme, 'recruiter:champs:search', {
      skills: ['survey'], country: 'germany', availability: 'available', verifiedOnly: true, minRate: 60, maxRate: 400, perPage: 100,
    });
    expect(filtered.data_champs.length).toBeGreaterThan(0);
    for (const c of filtered.data_champs) {
      expect(c.skills).toContain('survey');
      expect(c.country).toBe('Germany');
      expect(c.availability).toBe('available');
      expect(c.verified).toBe(true);
      expect(Number(c.daily_rate)).toBeGreaterThanOrEqual(60);
      expect(Number(c.daily_rate)).toBeLessThanOrEqual(400);
    }
    const byName = await value<{ data_champs: Array<{ name: string }> }>(acme, 'recruiter:champs:search', { search: 'amara', location: 'Berlin' });
    for (const c of byName.data_champs) expect(c.name.toLowerCase()).toContain('amara');
    const minOverMax = await failure(acme, 'recruiter:champs:search', { minRate: 300, maxRate: 100 });
    expect(minOverMax.kind).toBe('validation');
  });

  it('reads a profile and recommended matches with score and reasons', async () => {
    const champ = await value<{ id: number; name: string }>(acme, 'recruiter:champs:get', { dataChampId: 3 });
    expect(champ.id).toBe(3);
    const page = await value<{ jobs: Job[] }>(acme, 'recruiter:jobs:list', { status: 'active' });
    const matches = await value<Array<{ score: number; reasons: string[]; data_champ: { id: number } }>>(acme, 'recruiter:champs:matches', { jobId: page.jobs[0]!.id, limit: 5 });
    expect(matches.length).toBeGreaterThan(0);
    expect(matches.length).toBeLessThanOrEqual(5);
    for (const m of matches) {
      expect(m.score).toBeGreaterThanOrEqual(0);
      expect(m.score).toBeLessThanOrEqual(100);
      expect(m.reasons.length).toBeGreaterThan(0);
    }
  });
});

describe('argument validation', () => {
  const BAD: Array<[RecruiterInvokeChannel, unknown]> = [
    ['recruiter:connection:get', { extra: 1 }],
    ['recruiter:connect', { baseUrl: 'http://127.0.0.1:1/api/v1/recruiter', apiKey: 'has space' }],
    ['recruiter:connect', { baseUrl: 'http://127.0.0.1:1/api/v1/recruiter' }],
    ['recruiter:forget', 'now'],
    ['recruiter:jobs:list', { page: 0 }],
    ['recruiter:jobs:list', { perPage: 101 }],
    ['recruiter:jobs:list', { status: 'DROP TABLE' }],
    ['recruiter:jobs:get', { jobId: '1' }],
    ['recruiter:jobs:get', {}],
    ['recruiter:jobs:create', { job: { title: 'only a title' } }],
    ['recruiter:jobs:create', { job: { ...VALID_JOB, number_of_positions: '3' } }],
    ['recruiter:jobs:create', { job: { ...VALID_JOB, required_skills: ['a b'] } }],
    ['recruiter:jobs:create', { job: { ...VALID_JOB, owner: 'me' } }],
    ['recruiter:jobs:update', { jobId: 1, changes: {} }],
    ['recruiter:jobs:update', { jobId: 1, changes: { status: 'active' } }],
    ['recruiter:jobs:publish', { jobId: -1 }],
    ['recruiter:jobs:pause', { jobId: 1.5 }],
    ['recruiter:jobs:resume', null],
    ['recruiter:jobs:close', { jobId: 1, force: true }],
    ['recruiter:applications:list', { jobId: 1, status: 3 }],
    ['recruiter:applications:get', { jobId: 1 }],
    ['recruiter:applications:accept', { jobId: 1, applicationId: 0 }],
    ['recruiter:applications:reject', { jobId: 1, applicationId: 1, reason: 42 }],
    ['recruiter:applications:setStatus', { jobId: 1, applicationId: 1, status: 'hired' }],
    ['recruiter:applications:approveWork', [1, 1]],
    ['recruiter:champs:search', { availability: 'sometimes' }],
    ['recruiter:champs:search', { minRate: -1 }],
    ['recruiter:champs:search', { verifiedOnly: 'yes' }],
    ['recruiter:champs:search', { skills: 'survey' }],
    ['recruiter:champs:search', { perPage: 500 }],
    ['recruiter:champs:search', { name: 'x' }],
    ['recruiter:champs:get', { dataChampId: 'abc' }],
    ['recruiter:champs:matches', { jobId: 1, limit: 51 }],
  ];

  it('covers every channel', () => {
    const covered = new Set(BAD.map(([c]) => c));
    for (const channel of Object.keys(acme.handlers)) expect(covered, channel).toContain(channel);
  });

  it.each(BAD)('%s refuses %j with invalid_argument', async (channel, arg) => {
    const error = await failure(acme, channel, arg);
    expect(error.kind).toBe('invalid_argument');
    expect(error.message.length).toBeGreaterThan(10);
  });

  it('a bad base URL is a base_url error', async () => {
    const error = await failure(harness(), 'recruiter:connect', { baseUrl: 'http://example.com/api/v1/recruiter', apiKey: service.keyOf('full') });
    expect(error.kind).toBe('base_url');
  });
});

describe('secrets', () => {
  it('no recruiter or delivery key appears in any answer', () => {
    const text = JSON.stringify(results);
    expect(results.length).toBeGreaterThan(40);
    for (const org of service.organizations) expect(text).not.toContain(org.apiKey);
    expect(text).not.toContain(DELIVERY_KEY);
  });
});

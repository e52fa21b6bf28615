// Authentication, scopes, cross-organization access, 404/405 and error body shapes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecruiterServer, type RecruiterTestService } from './recruiter-server';
import { call, client } from './http';

let svc: RecruiterTestService;
beforeAll(async () => {
  svc = await startRecruiterServer();
});
afterAll(async () => {
  await svc.close();
});

/** Ids of the first job (and its first application) of an organization, read with a full key. */
async function firstJobOf(org: 'full' | 'otherFull'): Promise<{ jobId: number; appId: number }> {
  const api = client(svc.baseUrl, svc.keyOf(org));
  const jobs = (await api('GET', '/jobs')).body.jobs as Array<{ id: number; applications_count: number }>;
  const job = jobs.find((j) => j.applications_count > 0);
  if (!job) throw new Error('demo data has no job with applications');
  const apps = (await api('GET', `/jobs/${job.id}/applications`)).body.applications as Array<{ id: number }>;
  return { jobId: job.id, appId: apps[0]!.id };
}

function endpoints(jobId: number, appId: number) {
  return [
    { method: 'GET', path: '/jobs', scope: 'jobs:read' },
    { method: 'POST', path: '/jobs', scope: 'jobs:write', body: {} },
    { method: 'GET', path: `/jobs/${jobId}`, scope: 'jobs:read' },
    { method: 'PUT', path: `/jobs/${jobId}`, scope: 'jobs:write', body: { title: 'x' } },
    { method: 'POST', path: `/jobs/${jobId}/publish`, scope: 'jobs:write' },
    { method: 'POST', path: `/jobs/${jobId}/pause`, scope: 'jobs:write' },
    { method: 'POST', path: `/jobs/${jobId}/resume`, scope: 'jobs:write' },
    { method: 'POST', path: `/jobs/${jobId}/close`, scope: 'jobs:write' },
    { method: 'GET', path: `/jobs/${jobId}/applications`, scope: 'jobs:read' },
    { method: 'GET', path: `/jobs/${jobId}/applications/${appId}`, scope: 'jobs:read' },
    { method: 'POST', path: `/jobs/${jobId}/applications/${appId}/accept`, scope: 'jobs:write' },
    { method: 'POST', path: `/jobs/${jobId}/applications/${appId}/reject`, scope: 'jobs:write', body: { reason: 'x' } },
    { method: 'PATCH', path: `/jobs/${jobId}/applications/${appId}`, scope: 'jobs:write', body: { status: 'shortlisted' } },
    { method: 'POST', path: `/jobs/${jobId}/applications/${appId}/approve-work`, scope: 'jobs:write' },
    { method: 'GET', path: '/data-champs', scope: 'data_champs:read' },
    { method: 'GET', path: '/data-champs/1', scope: 'data_champs:read' },
    { method: 'GET', path: `/jobs/${jobId}/data-champs/matches`, scope: 'data_champs:read' },
  ] as const;
}

describe('authentication (401)', () => {
  it('refuses a missing header, an unknown key, a malformed header and a non-Bearer scheme on every kind of path', async () => {
    const cases = [
      { authorization: undefined, key: null },
      { authorization: 'Bearer rk_live_0000000000000000000000000000000000000000' },
      { authorization: 'Bearer' },
      { authorization: `Basic ${svc.keyOf('full')}` },
      { authorization: `Bearer ${svc.keyOf('full')}x` },
    ];
    for (const path of ['/me', '/jobs', '/jobs/1', '/data-champs', '/no-such-endpoint']) {
      for (const c of cases) {
        const res = await call(svc.baseUrl, 'GET', path, c);
        expect(res.status, `${path} with ${c.authorization ?? 'no header'}`).toBe(401);
        expect(res.body).toEqual({ error: expect.any(String) });
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
    }
  });

  it('never echoes the presented key', async () => {
    const res = await call(svc.baseUrl, 'GET', '/me', { authorization: 'Bearer rk_live_secret_should_not_echo' });
    expect(JSON.stringify(res.body)).not.toContain('secret_should_not_echo');
  });
});

describe('GET /me', () => {
  it('answers for every valid key, whatever its scopes, with the organization and the key prefix', async () => {
    for (const org of svc.organizations) {
      const res = await call(svc.baseUrl, 'GET', '/me', { key: org.apiKey });
      expect(res.status).toBe(200);
      expect(res.body.organization).toMatchObject({ id: expect.any(Number), name: org.name });
      expect(res.body.key.scopes).toEqual(org.scopes);
      expect(org.apiKey.startsWith(res.body.key.prefix)).toBe(true);
      expect(res.body.key.prefix.length).toBeLessThan(org.apiKey.length / 2);
      expect(JSON.stringify(res.body)).not.toContain(org.apiKey);
    }
  });

  it('the demo organizations cover all scopes, read-only, discovery-only and a second full organization', () => {
    const scopes = svc.organizations.map((o) => [...o.scopes].sort().join(' '));
    expect(scopes).toEqual([
      'data_champs:read jobs:read jobs:write',
      'jobs:read',
      'data_champs:read',
      'data_champs:read jobs:read jobs:write',
    ]);
  });
});

describe('scopes (403)', () => {
  it('refuses every endpoint to a key that lacks its scope, and changes nothing', async () => {
    const { jobId, appId } = await firstJobOf('full');
    const before = (await call(svc.baseUrl, 'GET', `/jobs/${jobId}`, { key: svc.keyOf('full') })).body;
    let refused = 0;
    for (const org of ['readOnly', 'discovery'] as const) {
      const key = svc.keyOf(org);
      const scopes = svc.organizations.find((o) => o.apiKey === key)!.scopes;
      for (const e of endpoints(jobId, appId)) {
        if (scopes.includes(e.scope)) continue;
        const res = await call(svc.baseUrl, e.method, e.path, { key, body: 'body' in e ? e.body : undefined });
        expect(res.status, `${org} ${e.method} ${e.path}`).toBe(403);
        expect(res.body).toEqual({ error: expect.stringContaining(e.scope) });
        refused++;
      }
    }
    // readOnly lacks 10 write + 3 data-champ endpoints; discovery lacks all 14 job endpoints.
    expect(refused).toBe(13 + 14);
    const after = (await call(svc.baseUrl, 'GET', `/jobs/${jobId}`, { key: svc.keyOf('full') })).body;
    expect(after).toEqual(before);
  });

  it('grants what a scope allows: read-only lists jobs, discovery searches Data Champs', async () => {
    expect((await call(svc.baseUrl, 'GET', '/jobs', { key: svc.keyOf('readOnly') })).status).toBe(200);
    expect((await call(svc.baseUrl, 'GET', '/data-champs', { key: svc.keyOf('discovery') })).status).toBe(200);
  });
});

describe('another organization (403)', () => {
  it('refuses every job, application and matches endpoint on another organization\'s job', async () => {
    const { jobId, appId } = await firstJobOf('otherFull');
    const before = (await call(svc.baseUrl, 'GET', `/jobs/${jobId}`, { key: svc.keyOf('otherFull') })).body;
    for (const e of endpoints(jobId, appId)) {
      if (!e.path.startsWith('/jobs/')) continue;
      const res = await call(svc.baseUrl, e.method, e.path, { key: svc.keyOf('full'), body: 'body' in e ? e.body : undefined });
      expect(res.status, `${e.method} ${e.path}`).toBe(403);
      expect(res.body).toEqual({ error: expect.stringContaining('another organization') });
    }
    expect((await call(svc.baseUrl, 'GET', `/jobs/${jobId}`, { key: svc.keyOf('otherFull') })).body).toEqual(before);
  });

  it('lists only the organization\'s own jobs', async () => {
    const mine = (await call(svc.baseUrl, 'GET', '/jobs', { key: svc.keyOf('full') })).body.jobs.map((j: { id: number }) => j.id);
    const theirs = (await call(svc.baseUrl, 'GET', '/jobs', { key: svc.keyOf('otherFull') })).body.jobs.map((j: { id: number }) => j.id);
    expect(mine.length).toBeGreaterThan(0);
    expect(theirs.length).toBeGreaterThan(0);
    expect(mine.filter((id: number) => theirs.includes(id))).toEqual([]);
  });
});

describe('not found (404) and wrong method (405)', () => {
  it('answers 404 with {error} for unknown jobs, applications, Data Champs and paths', async () => {
    const api = client(svc.baseUrl, svc.keyOf('full'));
    const { jobId } = await firstJobOf('full');
    const otherJob = await firstJobOf('otherFull');
    for (const [method, path] of [
      ['GET', '/jobs/999999'],
      ['GET', '/jobs/abc'],
      ['POST', '/jobs/999999/publish'],
      ['PUT', '/jobs/999999'],
      ['GET', '/jobs/999999/applications'],
      ['GET', `/jobs/${jobId}/applications/999999`],
      // an application that exists, but under another job
      ['GET', `/jobs/${jobId}/applications/${otherJob.appId}`],
      ['POST', `/jobs/${jobId}/applications/999999/accept`],
      ['GET', '/data-champs/999999'],
      ['GET', '/data-champs/%zz'],
      ['GET', '/jobs/999999/data-champs/matches'],
      ['GET', '/nothing-here'],
      ['GET', '/'],
    ] as const) {
      const res = await api(method, path, method === 'PUT' ? { title: 'x' } : undefined);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
  });

  it('answers 405 with Allow for a known path and another method', async () => {
    const res = await client(svc.baseUrl, svc.keyOf('full'))('DELETE', '/jobs/1');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, PUT');
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});

describe('request bodies', () => {
  it('answers 400 for a body that is not JSON', async () => {
    const res = await call(svc.baseUrl, 'POST', '/jobs', { key: svc.keyOf('full'), rawBody: '{"title": ' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringContaining('JSON') });
  });

  it('answers 422 with errors.body for JSON that is not an object', async () => {
    const res = await call(svc.baseUrl, 'POST', '/jobs', { key: svc.keyOf('full'), body: ['a'] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'validation failed', errors: { body: [expect.any(String)] } });
  });
});

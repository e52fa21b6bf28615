// Seeded fuzzing of the reference service over raw HTTP: odd paths, percent-encodings, query
// strings, Range headers, methods, oversized and malformed headers, against both APIs and the
// admin interface. No fault is registered, so any 5xx (or a connection closed without an
// answer) is a bug. A fixed number of requests, so it stops by itself; a failure names the
// seed and the request to replay.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrng } from '../../src-service/prng';
import { message, rawRequest } from './raw-http';
import { startTestService, type TestService } from './support';

const SEED = 20_261_123;
const REQUESTS = 2500;
const PARALLEL = 4;

let svc: TestService;
let port: number;

beforeAll(async () => {
  svc = await startTestService({ sets: 3 });
  port = Number(new URL(svc.origin).port);
});
afterAll(async () => {
  await svc.stop();
});

interface Ids {
  collection: number;
  set: number;
  file: number;
  consent: number;
}

function generator(random: () => number, ids: Ids): () => { method: string; target: string; headers: Array<[string, string]>; body: string } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const chance = (p: number): boolean => random() < p;
  const bases = ['/api/v1/partner', '/api/v1/recruiter', '/admin', '', '/api', '/api/v1', '/api/v1/partnerx'];
  const words = [
    'me', 'collections', 'sets', 'files', 'consents', 'jobs', 'applications', 'data-champs', 'matches', 'publish', 'accept',
    'faults', 'state', 'stats', 'reset', 'keys', 'revoke', 'edit', 'status',
    String(ids.collection), String(ids.set), String(ids.file), String(ids.consent), '1', '0', '-1', '9'.repeat(30), '1e3', '0x10',
    '..', '.', '', '%2e%2e', '..%2f', '%2f', '%', '%z', '%zz', '%00', '%c0%af', '%ff%fe', '%E0%A4%A', '%25', ';', ';a=b', '~', '\\', 'é', '%F0%9F%98%80',
  ];
  const queryNames = ['page', 'per_page', 'status', 'updated_since', 'limit', 'skills', 'min_rate', 'max_rate', 'verified_only', 'search', 'x', '', '%', 'page[]'];
  const queryValues = ['1', '0', '-1', '200', '201', '1.5', 'abc', '', '%', '%zz', '9'.repeat(40), 'accepted', 'rejected', '2026-01-01', '2026-13-45T99:99:99Z', 'true', 'null', '%00', '+', '&&', '=='];
  const ranges = [
    'bytes=0-', 'bytes=0-0', 'bytes=-1', 'bytes=-', 'bytes=5-1', 'bytes=0-1,2-3', `bytes=${'1-2,'.repeat(300)}1-2`, 'bytes=a-b', 'bytes=1e3-',
    'bytes=99999999999999999999-', 'bytes=0-99999999999999999999', 'bytes=-99999999999999999999', 'bytes= 1 - 2 ', 'items=0-1', 'bytes', '', '=',
  ];
  const contentTypes = ['application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-8', 'multipart/form-data', ''];
  const bodies = ['', '{', 'null', '[]', '"x"', '{"count": 1e9}', '{"status": "nope"}', '{"fault": {"type": "nope"}}', '{"slot_index": 99}', '{"count": -1}', '\u0000\u0001', '{"a":'.repeat(50)];
  const methods = ['GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'BREW', 'get', 'CONNECT'];
  const deliveryKey = svc.mainKey;
  const recruiterKey = svc.organizations[0]?.apiKey ?? '';
  const host = `127.0.0.1:${port}`;

  const real = [
    `/api/v1/partner/files/${ids.file}`, `/api/v1/partner/files/${ids.file}`, `/api/v1/partner/files/${ids.file}`, `/api/v1/partner/collections/${ids.collection}/sets`, `/api/v1/partner/collections/${ids.collection}/sets/${ids.set}`,
    `/api/v1/partner/consents/${ids.consent}`, '/api/v1/recruiter/jobs', '/api/v1/recruiter/data-champs', '/admin/state', '/admin/faults', `/admin/sets/${ids.set}/status`,
  ];

  return () => {
    const segments = Array.from({ length: Math.floor(random() * 5) }, () => pick(words));
    // A third of the requests start from a real endpoint, so Range and query oddities reach the handlers.
    let target = chance(0.35) ? pick(real) : `${pick(bases)}/${segments.join('/')}`;
    if (chance(0.1)) target = target.replace(/^\//, '//');
    if (chance(0.4)) {
      const pairs = Array.from({ length: 1 + Math.floor(random() * 4) }, () => `${pick(queryNames)}=${pick(queryValues)}`);
      target += `?${pairs.join('&')}`;
    }
    if (chance(0.02)) target += `${target.includes('?') ? '&' : '?'}q=${'z'.repeat(pick([2000, 9000, 20_000]))}`;
    if (chance(0.02)) target = pick(['*', 'http://evil.example/admin/state', 'evil', '']);

    const method = pick(methods);
    const headers: Array<[string, string]> = [['Host', chance(0.95) ? host : pick(['evil.example', `localhost:${port}`, `[::1]:${port}`, ''])]];
    // Mostly the right credential for the part addressed, so requests get past authentication.
    const fitting = target.startsWith('/api/v1/partner') ? deliveryKey : target.startsWith('/api/v1/recruiter') ? recruiterKey : svc.adminToken;
    const credential = random();
    if (credential < 0.6) headers.push(['Authorization', `Bearer ${fitting}`]);
    else if (credential < 0.85) {
      headers.push(['Authorization', pick([`Bearer ${deliveryKey}`, `Bearer ${recruiterKey}`, `Bearer ${svc.adminToken}`, 'Bearer', 'Basic abc', `Bearer ${'k'.repeat(500)}`, `bearer  ${deliveryKey}`])]);
    }
    if (chance(0.3)) headers.push(['Range', pick(ranges)]);
    if (chance(0.1)) headers.push(['If-Range', pick(['"x"', 'W/"x"', 'Mon, 01 Jan 2024 00:00:00 GMT', ''])]);
    if (chance(0.03)) headers.push(['X-Big', 'y'.repeat(pick([8000, 20_000, 70_000]))]);
    if (chance(0.03)) for (let i = 0; i < 150; i++) headers.push([`X-H${i}`, 'v']);
    if (chance(0.02)) headers.push(['Content-Length', pick(['-1', 'abc', '99999999999999999999'])]);
    if (chance(0.02)) headers.push(['Transfer-Encoding', pick(['chunked', 'gzip', 'identity'])]);
    if (chance(0.02)) headers.push(['Bad Header', 'x']);
    const writes = method === 'POST' || method === 'PUT' || method === 'PATCH';
    if (writes && chance(0.8)) headers.push(['Content-Type', pick(contentTypes)]);
    // Admin requests with the token only get bodies that are refused, so the fuzz never
    // registers a fault (which could ask for a 5xx) or changes much.
    const body = writes ? pick(bodies) : '';
    return { method, target, headers, body };
  };
}

describe('fuzzing the reference service', () => {
  it(`${REQUESTS} seeded odd requests (seed ${SEED}): no 5xx, every request answered, and the service keeps serving`, async () => {
    const state = await svc.admin.state();
    const set = state.collections[0]?.accepted_sets[0];
    const ids: Ids = { collection: state.collections[0]?.id ?? 1, set: set?.id ?? 1, file: set?.files[0]?.id ?? 1, consent: set?.consent_ids[0] ?? 1 };
    const next = generator(createPrng(SEED), ids);
    const requests = Array.from({ length: REQUESTS }, next);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let cursor = 0;
    const worker = async (): Promise<void> => {
      while (cursor < requests.length) {
        const index = cursor++;
        const r = requests[index]!;
        const reply = await rawRequest(port, message(r.method, r.target, r.headers, r.body));
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        if (reply.status === 0 || reply.status >= 500) {
          failures.push(`#${index} ${r.method} ${r.target.slice(0, 200)} [${r.headers.map(([k, v]) => `${k}: ${v.slice(0, 60)}`).join(' | ')}] body=${JSON.stringify(r.body.slice(0, 60))} -> ${reply.status} ${reply.body.slice(0, 200)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));

    expect(failures, failures.slice(0, 10).join('\n')).toEqual([]);
    // The mix really reached the handlers, not only the front door.
    for (const status of [200, 206, 400, 401, 404, 421]) expect(statuses.get(status) ?? 0, `HTTP ${status}`).toBeGreaterThan(0);

    // Still serving, and the fuzz left no fault behind.
    expect((await svc.admin.listFaults()).length).toBe(0);
    const me = await rawRequest(port, message('GET', '/api/v1/partner/me', [['Host', `127.0.0.1:${port}`], ['Authorization', `Bearer ${svc.mainKey}`]]));
    expect(me.status).toBe(200);
  }, 120_000);
});

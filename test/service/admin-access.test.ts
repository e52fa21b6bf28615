// Who gets into the admin interface: the per-run token, JSON-only bodies and the Host check
// that stop a web page (cross-origin "simple" POSTs, DNS rebinding) from driving it; and odd
// request targets that must get a 4xx rather than a 500.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminClient } from '../../src-service/admin-client';
import { message, rawRequest, type RawReply } from './raw-http';
import { startTestService, type TestService } from './support';

let svc: TestService;
let port: number;
let host: string;

beforeAll(async () => {
  svc = await startTestService({ sets: 2 });
  port = Number(new URL(svc.origin).port);
  host = `127.0.0.1:${port}`;
});
afterAll(async () => {
  await svc.stop();
});

const token = (): [string, string] => ['Authorization', `Bearer ${svc.adminToken}`];
const send = (method: string, target: string, headers: Array<[string, string]>, body = ''): Promise<RawReply> => rawRequest(port, message(method, target, headers, body));
const errorOf = (reply: RawReply): string => (JSON.parse(reply.body) as { error: string }).error;

describe('admin token', () => {
  it('is 32 random bytes in base64url, new on every start, and AdminClient sends it', async () => {
    expect(svc.adminToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const other = await startTestService({ sets: 1 });
    try {
      expect(other.adminToken).not.toBe(svc.adminToken);
      await expect(new AdminClient(svc.adminBaseUrl, other.adminToken).state()).rejects.toThrow(/401/);
    } finally {
      await other.stop();
    }
    expect((await svc.admin.state()).collections.length).toBeGreaterThan(0);
  });

  it('missing, wrong or differently sent tokens get 401 with WWW-Authenticate', async () => {
    const wrong = `Bearer ${svc.adminToken.slice(0, -1)}${svc.adminToken.endsWith('A') ? 'B' : 'A'}`;
    for (const auth of [undefined, wrong, 'Bearer', `Basic ${svc.adminToken}`, svc.adminToken, `Bearer ${svc.adminToken}x`, `Bearer ${svc.clients[0]?.apiKey}`]) {
      const reply = await send('GET', '/admin/state', [['Host', host], ...(auth === undefined ? [] : [['Authorization', auth] as [string, string]])]);
      expect(reply.status, String(auth)).toBe(401);
      expect(reply.headers['www-authenticate']).toBe('Bearer realm="admin"');
      expect(errorOf(reply)).toMatch(/admin token/);
      expect(reply.body).not.toContain(svc.adminToken);
    }
  });
});

describe('a web page cannot drive the admin interface', () => {
  it('a cross-origin "simple" POST (text/plain, no token) is refused and changes nothing', async () => {
    const before = await svc.admin.state();
    const set = before.collections[0]?.accepted_sets[0];
    const attacks: Array<[string, string]> = [
      ['/admin/faults', JSON.stringify({ match: {}, fault: { type: 'status', status: 500 } })],
      [`/admin/sets/${set?.id}/status`, JSON.stringify({ status: 'rejected' })],
      ['/admin/keys/revoke', JSON.stringify({ api_key: svc.mainKey })],
      [`/admin/collections/${svc.mainCollection}/sets`, JSON.stringify({ count: 3 })],
    ];
    for (const [target, body] of attacks) {
      const reply = await send('POST', target, [['Host', host], ['Origin', 'http://evil.example'], ['Content-Type', 'text/plain;charset=UTF-8']], body);
      expect(reply.status, target).toBe(401);
      expect(reply.headers['access-control-allow-origin']).toBeUndefined();
    }
    expect(await svc.admin.listFaults()).toEqual([]);
    expect(await svc.admin.state()).toEqual(before);
  });

  it('even with the token, a body that is not declared JSON gets 415 and changes nothing', async () => {
    const before = await svc.admin.state();
    const body = JSON.stringify({ match: {}, fault: { type: 'status', status: 500 } });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined]) {
      const reply = await send('POST', '/admin/faults', [['Host', host], token(), ...(type === undefined ? [] : [['Content-Type', type] as [string, string]])], body);
      expect(reply.status, String(type)).toBe(415);
    }
    expect(await svc.admin.listFaults()).toEqual([]);
    expect(await svc.admin.state()).toEqual(before);
    const ok = await send('POST', '/admin/stats/reset', [['Host', host], token(), ['Content-Type', 'Application/JSON; charset=utf-8']], '{}');
    expect(ok.status).toBe(200);
  });

  it('a forged Host (DNS rebinding) is refused with 421 on admin and on both APIs', async () => {
    const key = svc.mainKey;
    const org = svc.organizations[0]?.apiKey ?? '';
    for (const forged of ['evil.example', `evil.example:${port}`, `localhost:${port + 1}`, `127.0.0.2:${port}`, '']) {
      expect((await send('GET', '/admin/state', [['Host', forged], token()])).status, forged).toBe(421);
      expect((await send('GET', '/api/v1/partner/me', [['Host', forged], ['Authorization', `Bearer ${key}`]])).status, forged).toBe(421);
      expect((await send('GET', '/api/v1/recruiter/me', [['Host', forged], ['Authorization', `Bearer ${org}`]])).status, forged).toBe(421);
    }
    // No Host at all (HTTP/1.0) is refused too.
    expect((await rawRequest(port, `GET /admin/state HTTP/1.0\r\nAuthorization: Bearer ${svc.adminToken}\r\n\r\n`)).status).toBe(421);
    for (const good of [host, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      expect((await send('GET', '/admin/stats', [['Host', good], token()])).status, good).toBe(200);
      expect((await send('GET', '/api/v1/partner/me', [['Host', good], ['Authorization', `Bearer ${key}`]])).status, good).toBe(200);
    }
  });
});

describe('odd requests get a 4xx, never a 500', () => {
  const odd: Array<[string, string]> = [
    ['GET', '//'],
    ['GET', '//admin/state'],
    ['GET', '/%'],
    ['GET', '/%zz/%'],
    ['GET', '/api/v1/partner/..%2f'],
    ['GET', '/api/v1/partner/..%2f..%2fadmin/state'],
    ['GET', '/api/v1/recruiter/jobs/%E0%A4%A'],
    ['GET', '/api/v1/recruiter/jobs/%00'],
    ['GET', '/admin/%'],
    ['GET', `/api/v1/partner/collections/1/sets?${'page=1&'.repeat(1500)}`],
    ['GET', `/api/v1/partner/me?${'x'.repeat(20_000)}`],
    ['GET', 'http://evil.example/api/v1/partner/me'],
    ['OPTIONS', '*'],
    ['PROPFIND', '/api/v1/partner/me'],
    ['BREW', '/api/v1/partner/me'],
    ['CONNECT', '127.0.0.1:22'],
  ];
  it.each(odd.map(([method, target]) => [`${method} ${target.slice(0, 60)}`, method, target]))('%s', async (_label, method, target) => {
    const reply = await send(method, target, [['Host', host], ['Authorization', `Bearer ${svc.mainKey}`]]);
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
  });

  it('weird Range headers get a 200, 206 or 416', async () => {
    const file = `/api/v1/partner/files/${(await svc.admin.state()).collections[0]?.accepted_sets[0]?.files[0]?.id}`;
    for (const range of ['bytes=-', 'bytes=5-1', 'bytes=0-1,2-3,4-5,6-7', `bytes=${'0-0,'.repeat(500)}0-0`, 'bytes=a-b', 'bytes=99999999999999999999999-', 'bytes=0-99999999999999999999999', 'bytes=-99999999999999999999', 'items=0-1', 'bytes=', '=', 'bytes=1e3-']) {
      const reply = await send('GET', file, [['Host', host], ['Authorization', `Bearer ${svc.mainKey}`], ['Range', range]]);
      expect([200, 206, 416], range).toContain(reply.status);
    }
  });

  it('oversized headers get 431', async () => {
    const reply = await send('GET', '/api/v1/partner/me', [['Host', host], ['Authorization', `Bearer ${svc.mainKey}`], ['X-Big', 'y'.repeat(40_000)]]);
    expect(reply.status).toBe(431);
    expect((await send('GET', '/api/v1/partner/me', [['Host', host], ['Authorization', `Bearer ${svc.mainKey}`]])).status).toBe(200);
  });
});

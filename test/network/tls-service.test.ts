// The reference service's HTTPS mode: one port, h2 and http/1.1 by ALPN, the same routes,
// faults and admin interface as plain HTTP.
import diagnostics from 'node:diagnostics_channel';
import type { TLSSocket } from 'node:tls';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTlsService, type TlsService } from './support';

let t: TlsService;
beforeAll(async () => {
  t = await startTlsService();
});
afterAll(async () => {
  await t?.close();
});

const protocols: string[] = [];
diagnostics.subscribe('undici:client:connected', (message) => {
  protocols.push((message as { socket: TLSSocket }).socket.alpnProtocol || '');
});

async function firstFile(): Promise<{ id: number; size: number; sha256: string }> {
  const state = await t.svc.admin.state();
  const file = state.collections.find((c) => c.id === t.collectionId)!.accepted_sets[0]!.files[0]!;
  return { id: file.id, size: file.size_bytes, sha256: file.sha256 };
}

describe.each([
  { allowH2: true, alpn: 'h2' },
  { allowH2: false, alpn: 'http/1.1' },
])('HTTPS service, client allowH2=$allowH2', ({ allowH2, alpn }) => {
  const auth = () => ({ authorization: `Bearer ${t.apiKey}` });

  it(`negotiates ${alpn} and serves the delivery API, ranges and HEAD as over plain HTTP`, async () => {
    const dispatcher = new Agent({ allowH2, connect: { ca: t.certs.caCert } });
    protocols.length = 0;
    try {
      expect(t.svc.origin).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const list = await request(`${t.svc.deliveryBaseUrl}/collections/${t.collectionId}/sets`, { dispatcher, headers: auth() });
      expect(list.statusCode).toBe(200);
      expect(((await list.body.json()) as { sets: unknown[] }).sets.length).toBe(3);
      expect(protocols).toEqual([alpn]);

      const file = await firstFile();
      const range = await request(`${t.svc.deliveryBaseUrl}/files/${file.id}`, { dispatcher, headers: { ...auth(), range: 'bytes=100-199' } });
      expect(range.statusCode).toBe(206);
      expect(range.headers['content-range']).toBe(`bytes 100-199/${file.size}`);
      expect((await range.body.arrayBuffer()).byteLength).toBe(100);

      const head = await request(`${t.svc.deliveryBaseUrl}/files/${file.id}`, { method: 'HEAD', dispatcher, headers: auth() });
      expect(head.statusCode).toBe(200);
      expect(Number(head.headers['content-length'])).toBe(file.size);
      await head.body.dump();

      const denied = await request(`${t.svc.deliveryBaseUrl}/collections/${t.collectionId}/sets`, { dispatcher, headers: { authorization: 'Bearer nope' } });
      expect(denied.statusCode).toBe(401);
      await denied.body.dump();
    } finally {
      await dispatcher.close();
    }
  });

  it('obeys stream faults: a reset cuts the transfer after the promised bytes, the next request still works', async () => {
    const dispatcher = new Agent({ allowH2, connect: { ca: t.certs.caCert } });
    try {
      const file = await firstFile();
      await t.svc.admin.addFault({ api: 'delivery', path: `^/files/${file.id}$` }, { type: 'reset', afterBytes: 4096 }, 1);
      const received: number[] = [];
      const cut = await request(`${t.svc.deliveryBaseUrl}/files/${file.id}`, { dispatcher, headers: auth() });
      expect(cut.statusCode).toBe(200);
      await expect(
        (async () => {
          for await (const chunk of cut.body) received.push((chunk as Buffer).length);
        })(),
      ).rejects.toThrow();
      expect(received.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(4096);

      await t.svc.admin.addFault({ api: 'delivery', path: `^/files/${file.id}$` }, { type: 'status', status: 503 }, 1);
      const unavailable = await request(`${t.svc.deliveryBaseUrl}/files/${file.id}`, { dispatcher, headers: auth() });
      expect(unavailable.statusCode).toBe(503);
      await unavailable.body.dump();

      const whole = await request(`${t.svc.deliveryBaseUrl}/files/${file.id}`, { dispatcher, headers: auth() });
      expect((await whole.body.arrayBuffer()).byteLength).toBe(file.size);
    } finally {
      await dispatcher.close();
    }
  });
});

describe('HTTPS service', () => {
  it('counts requests in the admin stats, read over HTTPS by its own admin client', async () => {
    await t.svc.admin.resetStats();
    const dispatcher = new Agent({ allowH2: true, connect: { ca: t.certs.caCert } });
    try {
      const res = await request(`${t.svc.deliveryBaseUrl}/collections/${t.collectionId}/sets`, { dispatcher, headers: { authorization: `Bearer ${t.apiKey}` } });
      await res.body.dump();
    } finally {
      await dispatcher.close();
    }
    expect((await t.svc.admin.stats()).byRoute).toEqual({ 'GET /collections/:id/sets': 1 });
  });

  it('refuses a client that does not trust its CA', async () => {
    const dispatcher = new Agent({ allowH2: true });
    try {
      await expect(request(`${t.svc.deliveryBaseUrl}/collections/${t.collectionId}/sets`, { dispatcher })).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    } finally {
      await dispatcher.close();
    }
  });
});

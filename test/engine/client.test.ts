// The delivery client against the real service: answers validated, statuses mapped to kinds,
// the key never sent off-origin nor shown in messages.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createDeliveryClient } from '../../src-main/api/delivery-client';
import { ApiError } from '../../src-main/api/errors';
import { mainCollection, useService } from './helpers';

const env = useService({ sets: 3, fileSize: 8 * 1024, slots: 2, seed: 5 });

async function expectApiError(p: Promise<unknown>, kind: string, key?: string): Promise<ApiError> {
  const e = await p.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  expect((e as ApiError).kind).toBe(kind);
  if (key) expect((e as ApiError).message).not.toContain(key);
  return e as ApiError;
}

describe('delivery client', () => {
  it('reads /me, collections, sets and consents', async () => {
    const { svc } = env;
    const { apiKey, collectionId } = mainCollection(svc);
    const c = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey });
    try {
      const me = await c.me();
      expect(me.api_key.scopes).toContain('collections:read');
      expect(apiKey.startsWith(me.api_key.prefix)).toBe(true);
      const list = await c.listCollections();
      expect(list.map((x) => x.id)).toContain(collectionId);
      const detail = await c.getCollection(collectionId);
      expect(detail.spec.slots.length).toBe(2);
      const page = await c.listSets(collectionId, { perPage: 2 });
      expect(page.sets).toHaveLength(2);
      expect(page.has_more).toBe(true);
      const set = await c.getSet(collectionId, page.sets[0]!.id);
      expect(set.id).toBe(page.sets[0]!.id);
      const ref = set.participants.find((p) => p.consent)!.consent!;
      const consent = await c.getConsent(ref.url);
      expect(consent.id).toBe(ref.id);
      expect(c.requestCount).toBe(6);
    } finally {
      await c.close();
    }
  });

  it('maps statuses to kinds and never puts the key in messages', async () => {
    const { svc } = env;
    const { apiKey, collectionId } = mainCollection(svc);
    await expectApiError(createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey: svc.revokedKey }).me(), 'auth', svc.revokedKey);
    await expectApiError(createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey: svc.expiredKey }).me(), 'auth', svc.expiredKey);
    const c = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey });
    try {
      await expectApiError(c.getCollection(999_999), 'not_found', apiKey);
      await expectApiError(c.listSets(collectionId, { updatedSince: 'yesterday' }), 'bad_request', apiKey);
      await svc.admin.addFault({ path: '^/me$' }, { type: 'rate_limit', retryAfter: 7 }, 1);
      const rl = await expectApiError(c.me(), 'rate_limited', apiKey);
      expect(rl.retryAfterSeconds).toBe(7);
      await svc.admin.addFault({ path: '^/me$' }, { type: 'status', status: 502 }, 1);
      await expectApiError(c.me(), 'server', apiKey);
      await svc.admin.addFault({ path: '^/me$' }, { type: 'body', status: 200, contentType: 'text/html', body: '<html>login</html>' }, 1);
      expect((await expectApiError(c.me(), 'malformed', apiKey)).message).toMatch(/JSON/);
      await svc.admin.addFault({ path: '^/me$' }, { type: 'body', status: 200, contentType: 'application/json', body: '{"client":{"id":1,"name":"x","email":"e"},"api_key":{"name":"n","prefix":"p"}}' }, 1);
      expect((await expectApiError(c.me(), 'malformed', apiKey)).message).toContain('api_key.scopes');
    } finally {
      await c.close();
    }
  });

  it('rejects non-hex sha256 and negative sizes as malformed, naming the field', async () => {
    const { svc } = env;
    const { apiKey, collectionId } = mainCollection(svc);
    const c = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey });
    try {
      const page = await c.listSets(collectionId, { perPage: 1 });
      const set = structuredClone(page.sets[0]!) as unknown as { files: Array<Record<string, unknown>> };
      set.files[0]!.sha256 = 'Z'.repeat(64);
      const body = JSON.stringify({ sets: [set], page: 1, per_page: 1, total: 1, has_more: false });
      await svc.admin.addFault({ path: '/sets$' }, { type: 'body', status: 200, contentType: 'application/json', body }, 1);
      expect((await expectApiError(c.listSets(collectionId, {}), 'malformed')).message).toContain('sets[0].files[0].sha256');
      set.files[0]!.sha256 = 'a'.repeat(64);
      set.files[0]!.size_bytes = -1;
      const body2 = JSON.stringify({ sets: [set], page: 1, per_page: 1, total: 1, has_more: false });
      await svc.admin.addFault({ path: '/sets$' }, { type: 'body', status: 200, contentType: 'application/json', body: body2 }, 1);
      expect((await expectApiError(c.listSets(collectionId, {}), 'malformed')).message).toContain('sets[0].files[0].size_bytes');
    } finally {
      await c.close();
    }
  });

  it('never sends the key to another origin, and reports unreachable hosts as network errors', async () => {
    const { svc } = env;
    const { apiKey } = mainCollection(svc);
    let sawAuth = false;
    const other = http.createServer((req, res) => {
      if (req.headers.authorization) sawAuth = true;
      res.end('{}');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const port = (other.address() as AddressInfo).port;
    const c = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey });
    try {
      await expectApiError(c.getConsent(`http://127.0.0.1:${port}/consents/1`), 'malformed', apiKey);
      await expectApiError(c.openFile(`http://127.0.0.1:${port}/files/1`, {}), 'malformed', apiKey);
      expect(sawAuth).toBe(false);
    } finally {
      await c.close();
      other.close();
    }
    const dead = createDeliveryClient({ baseUrl: 'http://127.0.0.1:9/api/v1/partner', apiKey });
    const e = await expectApiError(dead.me(), 'network', apiKey);
    expect(e.message).toContain('127.0.0.1:9');
    await dead.close();
    expect(() => createDeliveryClient({ baseUrl: 'http://example.com/api', apiKey })).toThrow(/https/);
  });
});

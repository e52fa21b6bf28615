// The delivery client against the real service: answers validated, statuses mapped to kinds,
// the key never sent off-origin nor shown in messages.
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDeliveryClient } from '../../src-main/api/delivery-client';
import { ApiError } from '../../src-main/api/errors';
import { expectDatasetMatches, FAST_TUNING, mainCollection, sync, tempDir, useService } from './helpers';

const env = useService({ sets: 3, fileSize: 8 * 1024, slots: 2, seed: 5 });

type Json = Record<string, unknown>;

/** The next sets page the service answers is this body. */
async function servePage(svc: typeof env.svc, body: unknown): Promise<void> {
  await svc.admin.addFault({ path: '/sets$' }, { type: 'body', status: 200, contentType: 'application/json', body: typeof body === 'string' ? body : JSON.stringify(body) }, 1);
}

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

  it('a bad set record is rejected on its own, naming the field; the other sets of the page pass', async () => {
    const { svc } = env;
    const { apiKey, collectionId } = mainCollection(svc);
    const c = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey });
    try {
      const page = await c.listSets(collectionId, { perPage: 3 });
      expect(page.rejected).toEqual([]);
      const [a, b, good] = page.sets.map((x) => structuredClone(x) as unknown as Json & { files: Json[] });
      a!.files[0]!.sha256 = 'Z'.repeat(64);
      b!.files[1]!.size_bytes = -1;
      const odd = { ...good!, id: 1.5 };
      const notAnObject = 'set 4';
      await servePage(svc, { sets: [a, b, good, odd, notAnObject], page: 1, per_page: 200, total: 5, has_more: false });
      const mixed = await c.listSets(collectionId, {});
      expect(mixed.sets.map((x) => x.id)).toEqual([good!.id]);
      expect(mixed.rejected).toEqual([
        { id: a!.id, reason: expect.stringContaining('sets[0].files[0].sha256: must be 64 lowercase hex characters') },
        { id: b!.id, reason: expect.stringContaining('sets[1].files[1].size_bytes') },
        { id: null, reason: expect.stringContaining('sets[3].id') },
        { id: null, reason: expect.stringContaining('sets[4]') },
      ]);
      expect(mixed).toMatchObject({ page: 1, per_page: 200, total: 5, has_more: false });
    } finally {
      await c.close();
    }
  });

  it('a bad page envelope fails the whole page as malformed, naming the field', async () => {
    const { svc } = env;
    const { apiKey, collectionId } = mainCollection(svc);
    const c = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey });
    try {
      const { sets } = await c.listSets(collectionId, { perPage: 1 });
      const good = { sets, page: 1, per_page: 200, total: 1, has_more: false };
      for (const [field, envelope] of [
        ['has_more', { ...good, has_more: 'no' }],
        ['total', { ...good, total: -1 }],
        ['page', { ...good, page: '1' }],
        ['sets', { ...good, sets: { 0: sets[0] } }],
        ['per_page', { sets, page: 1, total: 1, has_more: false }],
        ['answer', [good]],
      ] as const) {
        await servePage(svc, envelope);
        const e = await expectApiError(c.listSets(collectionId, {}), 'malformed', apiKey);
        expect(e.message).toMatch(new RegExp(`unexpected answer: ${field}: `));
      }
    } finally {
      await c.close();
    }
  });

  it('keeps only the documented fields of every record, except the consent record, which is kept whole', async () => {
    const { svc } = env;
    const { apiKey, collectionId } = mainCollection(svc);
    const c = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey });
    try {
      const { sets } = await c.listSets(collectionId, { perPage: 1 });
      const set = structuredClone(sets[0]!) as unknown as Json & { files: Json[]; participants: Json[] };
      set.reviewer = 'Rita Reviewer';
      set.files[0]!.uploader_ip = '10.0.0.1';
      set.participants[0]!.home_address = '1 Main St';
      await servePage(svc, { sets: [set], page: 1, per_page: 200, total: 1, has_more: false, next_cursor: 'x' });
      const page = await c.listSets(collectionId, {});
      expect(page.sets[0]).toEqual(sets[0]);
      expect(JSON.stringify(page)).not.toMatch(/Rita|10\.0\.0\.1|Main St|next_cursor/);

      const detail = await c.getCollection(collectionId);
      const served = { collection: { ...detail, owner_email: 'boss@example.com', sets: { ...detail.sets, archived: 3 }, spec: { ...detail.spec, internal_notes: 'x' } } };
      await svc.admin.addFault({ path: `^/collections/${collectionId}$` }, { type: 'body', body: JSON.stringify(served) }, 1);
      expect(await c.getCollection(collectionId)).toEqual(detail);

      const ref = sets[0]!.participants.find((p) => p.consent)!.consent!;
      const consent = await c.getConsent(ref.url);
      expect(consent).toMatchObject({ id: ref.id, release_text: expect.any(String), signature: expect.any(Object) });
    } finally {
      await c.close();
    }
  });

  it('a collection answer about another collection is malformed', async () => {
    const { svc } = env;
    const { apiKey, collectionId } = mainCollection(svc);
    const c = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey });
    try {
      const detail = await c.getCollection(collectionId);
      await svc.admin.addFault({ path: `^/collections/${collectionId}$` }, { type: 'body', body: JSON.stringify({ collection: { ...detail, id: collectionId + 1 } }) }, 1);
      const e = await expectApiError(c.getCollection(collectionId), 'malformed', apiKey);
      expect(e.message).toContain(`collection.id is ${collectionId + 1}, not the collection ${collectionId} asked for`);
    } finally {
      await c.close();
    }
  });

  it('unlisted statuses: a 4xx is bad_request (the x00 of its class), a 5xx server, a 3xx malformed', async () => {
    const { svc } = env;
    const { apiKey } = mainCollection(svc);
    const c = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey });
    try {
      for (const [status, kind] of [[409, 'bad_request'], [418, 'bad_request'], [507, 'server'], [302, 'malformed']] as const) {
        await svc.admin.addFault({ path: '^/me$' }, { type: 'status', status }, 1);
        expect((await expectApiError(c.me(), kind, apiKey)).status).toBe(status);
      }
    } finally {
      await c.close();
    }
  });

  it("an error answer's body is read up to 16 KiB: a huge error page fails by its status, without its text", async () => {
    const { svc } = env;
    const { apiKey } = mainCollection(svc);
    const c = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey });
    try {
      // A short error body names the server's words; a 256 KiB one is cut at 16 KiB, so its JSON no
      // longer parses and only the status speaks (read whole, its "error" would be in the message).
      await svc.admin.addFault({ path: '^/me$' }, { type: 'body', status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'down for upkeep' }) }, 1);
      expect((await expectApiError(c.me(), 'server', apiKey)).message).toMatch(/HTTP 503.*down for upkeep/);
      await svc.admin.addFault({ path: '^/me$' }, { type: 'body', status: 503, contentType: 'application/json', body: JSON.stringify({ error: `down ${'x'.repeat(256 * 1024)}` }) }, 1);
      const e = await expectApiError(c.me(), 'server', apiKey);
      expect(e.status).toBe(503);
      expect(e.message).toMatch(/HTTP 503/);
      expect(e.message).not.toContain('down x');
      // The connection the cut body was on is not reused half-read: the next answer is whole.
      expect((await c.me()).client.id).toBeGreaterThan(0);
    } finally {
      await c.close();
    }
  });

  it('JSON answers are bounded: too large or too deeply nested is malformed, refused before parsing', async () => {
    const { svc } = env;
    const { apiKey, collectionId } = mainCollection(svc);
    const c = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey, maxJsonBytes: 64 * 1024 });
    const standard = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey });
    try {
      const { sets } = await c.listSets(collectionId, { perPage: 1 });
      const padded = { sets, page: 1, per_page: 200, total: 1, has_more: false, padding: 'x'.repeat(100 * 1024) };
      await servePage(svc, padded);
      expect((await expectApiError(c.listSets(collectionId, {}), 'malformed', apiKey)).message).toMatch(/larger than 64 KiB/);
      // 400,000 levels (800 KB, under the default cap): JSON.parse would build them; the scan refuses at level 33.
      await servePage(svc, `{"sets": ${'['.repeat(400_000)}${']'.repeat(400_000)}}`);
      expect((await expectApiError(standard.listSets(collectionId, {}), 'malformed', apiKey)).message).toMatch(/deeper than 32 levels/);
      const deepButAllowed = `{"sets": [], "page": 1, "per_page": 200, "total": 0, "has_more": false, "x": ${'['.repeat(31)}${']'.repeat(31)}}`;
      await servePage(svc, deepButAllowed);
      expect((await c.listSets(collectionId, {})).sets).toEqual([]);
      // Brackets inside strings are text, not nesting.
      await servePage(svc, JSON.stringify({ sets: [], page: 1, per_page: 200, total: 0, has_more: false, x: '['.repeat(1000) }));
      expect((await c.listSets(collectionId, {})).total).toBe(0);
      // An escaped quote does not end a string: the brackets after it are still text...
      await servePage(svc, JSON.stringify({ sets: [], page: 1, per_page: 200, total: 0, has_more: false, x: `a"${'['.repeat(40)}` }));
      expect((await c.listSets(collectionId, {})).total).toBe(0);
      // ...while a string ending in an escaped backslash is over, and the nesting after it counts.
      const afterBackslash = JSON.stringify({ sets: [], page: 1, per_page: 200, total: 0, has_more: false, x: 'a\\', y: 'b' }).replace('"y":"b"', `"y":${'['.repeat(33)}${']'.repeat(33)}`);
      await servePage(svc, afterBackslash);
      expect((await expectApiError(standard.listSets(collectionId, {}), 'malformed', apiKey)).message).toMatch(/deeper than 32 levels/);
    } finally {
      await c.close();
      await standard.close();
    }
  });

  it('a JSON answer trickling slower than 1 KiB/s over the stall window is a retryable stall; a slow but steady one passes', async () => {
    const { svc } = env;
    const { apiKey, collectionId } = mainCollection(svc);
    const c = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey, bodyTimeoutMs: 1000 });
    try {
      // 160 bytes/s: a byte arrives every few ms, so "no data for 1 s" never fires; the pace rule does.
      await svc.admin.addFault({ path: '/sets$' }, { type: 'trickle', bytes: 16, everyMs: 100 }, 1);
      const e = await expectApiError(c.listSets(collectionId, {}), 'network', apiKey);
      expect(e.message).toMatch(/transfer stalled \(\d+ bytes in 1 s, less than 1 KiB\/s\)/);
      expect(e.retryable).toBe(true);
      // 40 KiB/s is slow but well above the floor.
      await svc.admin.addFault({ path: '/sets$' }, { type: 'trickle', bytes: 4096, everyMs: 100 }, 1);
      expect((await c.listSets(collectionId, {})).sets.length).toBe(3);
    } finally {
      await c.close();
    }
  });

  it('the walk retries a trickling page within its budget: once recovers (exit 0), always gives up (exit 4)', async () => {
    const { svc, collectionId } = env;
    const dest = await tempDir('dsync-trickle-');
    try {
      await svc.admin.addFault({ path: '/sets$' }, { type: 'trickle', bytes: 16, everyMs: 100 }, 1);
      const once = await sync(svc, path.join(dest, 'a'), { tuning: { ...FAST_TUNING, stallTimeoutMs: 1000 } });
      expect(once.summary.exitCode).toBe(0);
      await expectDatasetMatches(svc, path.join(dest, 'a'), collectionId);
      await svc.admin.addFault({ path: '/sets$' }, { type: 'trickle', bytes: 16, everyMs: 100 });
      const always = await sync(svc, path.join(dest, 'b'), { tuning: { ...FAST_TUNING, stallTimeoutMs: 1000, maxAttempts: 2 } });
      expect(always.summary.exitCode).toBe(4);
      expect(always.summary.fatal).toMatchObject({ kind: 'network', message: expect.stringMatching(/less than 1 KiB\/s/) });
    } finally {
      await fs.rm(dest, { recursive: true, force: true });
    }
  });

  it('never sends the key to another origin, and reports unreachable hosts as network errors', async () => {
    const { svc } = env;
    const { apiKey } = mainCollection(svc);
    let sawAuth = false;
    const seenPaths: string[] = [];
    const other = http.createServer((req, res) => {
      seenPaths.push(req.url!);
      if (req.headers.authorization) sawAuth = true;
      res.end('{}');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const port = (other.address() as AddressInfo).port;
    const c = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey });
    try {
      await expectApiError(c.getConsent(`http://127.0.0.1:${port}/consents/1`), 'malformed', apiKey);
      await expectApiError(c.streamFile(`http://127.0.0.1:${port}/files/1`, {}, () => null), 'malformed', apiKey);
      // The service's origin followed by `@` is userinfo before another host, not the service.
      const serviceOrigin = new URL(svc.deliveryBaseUrl).origin;
      await expectApiError(c.getConsent(`${serviceOrigin}@127.0.0.1:${port}/consents/1`), 'malformed', apiKey);
      expect(sawAuth).toBe(false);
      // A same-origin URL that is not in its plain form goes out as URL resolves it (dot segments
      // removed, an empty query dropped); a plain one as it is. `other` is the service here.
      const onOther = createDeliveryClient({ baseUrl: `http://127.0.0.1:${port}/api/v1/partner`, apiKey });
      try {
        const base = `http://127.0.0.1:${port}/api/v1/partner`;
        for (const [given, sent] of [
          [`${base}/x/../consents/7`, '/api/v1/partner/consents/7'],
          [`${base}/./consents/7?`, '/api/v1/partner/consents/7'],
          [`${base}/consents/7?v=a%20b&w=1`, '/api/v1/partner/consents/7?v=a%20b&w=1'],
          [`${base}/consents/7?v=a b`, '/api/v1/partner/consents/7?v=a%20b'],
        ]) {
          await onOther.getConsent(given!).catch(() => undefined);
          expect(seenPaths.pop(), given).toBe(sent);
        }
      } finally {
        await onOther.close();
      }
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

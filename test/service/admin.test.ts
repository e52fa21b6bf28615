// Admin mutations, counters and state, observed through the delivery API.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectJsonError, getBytes, getJson, sha256, startTestService, walkSets, type ApiCollectionDetail, type ApiFile, type ApiSet, type ApiSetsPage, type TestService } from './support';

let svc: TestService;
let base: string;

beforeAll(async () => {
  svc = await startTestService({ sets: 5 });
  base = svc.deliveryBaseUrl;
});
afterAll(async () => {
  await svc.stop();
});

const detail = async () => (await getJson<{ collection: ApiCollectionDetail }>(`${base}/collections/${svc.mainCollection}`, svc.mainKey)).body.collection;

describe('POST /admin/collections/:id/sets', () => {
  it('adds accepted sets at the end of the feed with downloadable files, gold and null-consent variants', async () => {
    const before = await walkSets(base, svc.mainKey, svc.mainCollection);
    const watermark = before.map((s) => s.updated_at).sort().at(-1) as string;
    const added = await svc.admin.addSets(svc.mainCollection, { count: 2 });
    expect(added).toHaveLength(2);
    const [gold] = await svc.admin.addSets(svc.mainCollection, { is_gold: true, consent_null: true });
    const after = await walkSets(base, svc.mainKey, svc.mainCollection);
    expect(after.map((s) => s.id)).toEqual([...before.map((s) => s.id), ...added.map((s) => s.id), gold?.id]);
    const fresh = after.slice(before.length);
    for (const set of fresh) {
      expect(set.status).toBe('accepted');
      expect(set.accepted_at).toBe(set.updated_at);
      expect(set.files).toHaveLength(4);
      for (const f of set.files) {
        // Real videos in the collection's formats (mp4, mov): name, type and size true for the body.
        expect(f.filename).toMatch(new RegExp(`^set_${set.id}_slot_${String(f.slot_index).padStart(2, '0')}\\.(mp4|mov)$`));
        expect(f.content_type).toBe(f.filename.endsWith('.mov') ? 'video/quicktime' : 'video/mp4');
        const body = (await getBytes(f.url, svc.mainKey)).body;
        expect(body.length).toBe(f.size_bytes);
        expect(sha256(body)).toBe(f.sha256);
      }
    }
    expect(fresh.at(-1)?.is_gold).toBe(true);
    expect(fresh.at(-1)?.participants.every((p) => p.consent === null)).toBe(true);
    for (const p of fresh[0]?.participants ?? []) expect((await getJson(p.consent?.url ?? '', svc.mainKey)).status).toBe(200);
    // The incremental feed after the old watermark holds exactly the new sets.
    const incremental = await walkSets(base, svc.mainKey, svc.mainCollection, `&updated_since=${encodeURIComponent(watermark)}`);
    expect(incremental.map((s) => s.id)).toEqual(fresh.map((s) => s.id));
    const c = await detail();
    expect(c.sets.accepted).toBe(after.length);
    expect(c.quotas.reduce((n, q) => n + q.accepted, 0)).toBe(after.length);
  });

  it('refuses an unknown collection and bad counts', async () => {
    await expect(svc.admin.addSets(999_999)).rejects.toThrow(/404/);
    await expect(svc.admin.addSets(svc.mainCollection, { count: 0 })).rejects.toThrow(/400/);
  });
});

describe('POST /admin/sets/:id/edit', () => {
  it('gives the slot a new body and sha256, same size, and a newer updated_at; If-Range with the old ETag gets the new file', async () => {
    const set = (await walkSets(base, svc.mainKey, svc.mainCollection))[1] as ApiSet;
    const old = set.files[1] as ApiFile;
    const edited = await svc.admin.editSet(set.id, { slot_index: 2 });
    const now = (await getJson<{ set: ApiSet }>(`${base}/collections/${svc.mainCollection}/sets/${set.id}`, svc.mainKey)).body.set;
    expect(edited.updated_at).toBe(now.updated_at);
    expect(Date.parse(now.updated_at)).toBeGreaterThan(Date.parse(set.updated_at));
    const changed = now.files[1] as ApiFile;
    expect(changed.id).toBe(old.id);
    expect(changed.sha256).not.toBe(old.sha256);
    expect(changed.size_bytes).toBe(old.size_bytes);
    expect(now.files[0]?.sha256).toBe(set.files[0]?.sha256);
    const body = await getBytes(changed.url, svc.mainKey, { range: 'bytes=100-', 'if-range': `"${old.sha256}"` });
    expect(body.status).toBe(200);
    expect(sha256(body.body)).toBe(changed.sha256);
    // The edited set comes again in an incremental walk from before the edit.
    const again = await walkSets(base, svc.mainKey, svc.mainCollection, `&updated_since=${encodeURIComponent(set.updated_at)}`);
    expect(again.map((s) => s.id)).toContain(set.id);
  });

  it('serves a hostile filename verbatim in the metadata (clients must refuse it), safely quoted in headers', async () => {
    const set = (await walkSets(base, svc.mainKey, svc.mainCollection))[2] as ApiSet;
    for (const filename of ['../x.mp4', '/etc/x.mp4', 'set_999_slot_01.mp4', 'a"b.mp4']) {
      const edited = await svc.admin.editSet(set.id, { filename });
      expect(edited.files[0]?.filename).toBe(filename);
      const res = await getBytes(edited.files[0]?.url ?? '', svc.mainKey);
      expect(res.status).toBe(200);
      expect(sha256(res.body)).toBe(edited.files[0]?.sha256);
      expect(String(res.headers['content-disposition'])).toMatch(/^attachment; filename="/);
    }
  });

  it('can change the size when asked', async () => {
    const set = (await walkSets(base, svc.mainKey, svc.mainCollection))[3] as ApiSet;
    const edited = await svc.admin.editSet(set.id, { size_bytes: 1000 });
    expect(edited.files[0]?.size_bytes).toBe(1000);
    expect((await getBytes(edited.files[0]?.url ?? '', svc.mainKey)).body.length).toBe(1000);
  });
});

describe('POST /admin/sets/:id/status', () => {
  it('moves a set out of accepted (files and consents 404, counts follow) and back in (at the end of the feed)', async () => {
    const before = await walkSets(base, svc.mainKey, svc.mainCollection);
    const set = before[0] as ApiSet;
    const countsBefore = (await detail()).sets;
    const moved = await svc.admin.setStatus(set.id, 'rework');
    expect(moved.status).toBe('rework');
    expect(Date.parse(moved.updated_at)).toBeGreaterThan(Date.parse(set.updated_at));
    expectJsonError(await getJson(set.files[0]?.url ?? '', svc.mainKey), 404);
    const consent = set.participants.find((p) => p.consent)?.consent;
    if (consent) expectJsonError(await getJson(consent.url, svc.mainKey), 404);
    const listed = (await getJson<ApiSetsPage>(`${base}/collections/${svc.mainCollection}/sets?status=rework&per_page=200`, svc.mainKey)).body.sets;
    expect(listed.map((s) => s.id)).toContain(set.id);
    const countsMid = (await detail()).sets;
    expect(countsMid.accepted).toBe((countsBefore.accepted ?? 0) - 1);
    expect(countsMid.rework).toBe((countsBefore.rework ?? 0) + 1);
    expect((await walkSets(base, svc.mainKey, svc.mainCollection)).map((s) => s.id)).not.toContain(set.id);

    const back = await svc.admin.setStatus(set.id, 'accepted');
    expect(back.accepted_at).toBe(back.updated_at);
    const after = await walkSets(base, svc.mainKey, svc.mainCollection);
    expect(after.at(-1)?.id).toBe(set.id);
    expect((await getBytes(set.files[0]?.url ?? '', svc.mainKey)).status).toBe(200);
    await expect(svc.admin.setStatus(set.id, 'bogus' as 'accepted')).rejects.toThrow(/400/);
  });
});

describe('POST /admin/keys/revoke', () => {
  it('makes a working key answer 401', async () => {
    const other = svc.otherKey;
    expect((await getJson(`${base}/me`, other)).status).toBe(200);
    await svc.admin.revokeKey(other);
    const res = await getJson<{ error: string }>(`${base}/me`, other);
    expectJsonError(res, 401);
    expect(res.body.error).toMatch(/revoked/);
    await expect(svc.admin.revokeKey('dsk_live_nope')).rejects.toThrow(/404/);
  });
});

describe('GET /admin/stats and /admin/state', () => {
  it('counts requests by route, file requests and file bytes; resets', async () => {
    await svc.admin.resetStats();
    const sets = await walkSets(base, svc.mainKey, svc.mainCollection);
    const f = sets[0]?.files[0] as ApiFile;
    await getBytes(f.url, svc.mainKey);
    await getBytes(f.url, svc.mainKey, { range: 'bytes=0-99' });
    await getJson(`${base}/me`, svc.mainKey);
    const stats = await svc.admin.stats();
    expect(stats.byRoute['GET /collections/:id/sets']).toBe(1);
    expect(stats.byRoute['GET /files/:id']).toBe(2);
    expect(stats.byRoute['GET /me']).toBe(1);
    expect(stats.requests).toBe(4);
    expect(stats.fileRequests).toBe(2);
    expect(stats.fileBytesSent).toBe(f.size_bytes + 100);
    await svc.admin.resetStats();
    expect(await svc.admin.stats()).toEqual({ requests: 0, byRoute: {}, fileRequests: 0, fileBytesSent: 0, connections: expect.any(Number), byHttpVersion: {}, idleDrops: 0, timeline: [] });
  });

  it('describes every collection with its accepted sets in feed order', async () => {
    const state = await svc.admin.state();
    const main = state.collections.find((c) => c.id === svc.mainCollection);
    const sets = await walkSets(base, svc.mainKey, svc.mainCollection);
    expect(main?.accepted_set_ids).toEqual(sets.map((s) => s.id));
    expect(main?.accepted_sets.map((s) => s.files.map((f) => f.sha256))).toEqual(sets.map((s) => s.files.map((f) => f.sha256)));
    expect(main?.client).toBe(svc.clients[0]?.name);
    expect(state.collections.map((c) => c.id).sort()).toEqual(svc.clients.flatMap((c) => c.collections).sort());
  });

  it('answers unknown admin paths with a JSON 404', async () => {
    const res = await getJson(`${svc.adminBaseUrl}/nope`, svc.adminToken);
    expectJsonError(res, 404);
  });
});

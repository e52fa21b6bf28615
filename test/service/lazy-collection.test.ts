// Large-collection mode (`lazy: true`): 250,000 accepted sets x 4 files served from a formula.
// Listings at both ends, bodies that match their listed SHA-256, consents, live sets after the
// lazy ones, and that the sets are not held in memory (the admin state, which lists the
// store's records, has none of them; the heap does not grow by what 250,000 records weigh).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBytes, getJson, sha256, startTestService, type ApiCollectionDetail, type ApiSet, type ApiSetsPage, type TestService } from './support';

const SETS = 250_000;
const PER_PAGE = 200;
const LAST_PAGE = SETS / PER_PAGE;
let svc: TestService;
let base: string;
let heapBefore: number;

function page(n: number, query = ''): Promise<{ status: number; body: ApiSetsPage }> {
  return getJson<ApiSetsPage>(`${base}/collections/${svc.mainCollection}/sets?per_page=${PER_PAGE}&page=${n}${query}`, svc.mainKey);
}

beforeAll(async () => {
  heapBefore = process.memoryUsage().heapUsed;
  svc = await startTestService({ sets: SETS, lazy: true, fileSize: 1024 });
  base = svc.deliveryBaseUrl;
});
afterAll(async () => {
  await svc.stop();
});

describe('lazy large collection', () => {
  it('lists the first and the last page of 250,000 sets in feed order', async () => {
    const first = await page(1);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ page: 1, per_page: PER_PAGE, total: SETS, has_more: true });
    expect(first.body.sets).toHaveLength(PER_PAGE);
    const last = await page(LAST_PAGE);
    expect(last.body).toMatchObject({ page: LAST_PAGE, total: SETS, has_more: false });
    expect(last.body.sets).toHaveLength(PER_PAGE);
    const past = await page(LAST_PAGE + 1);
    expect(past.body).toMatchObject({ sets: [], total: SETS, has_more: false });

    const all = [...first.body.sets, ...last.body.sets];
    for (const set of all) {
      expect(set.status).toBe('accepted');
      expect(set.files.map((f) => f.slot_index)).toEqual([1, 2, 3, 4]);
      expect(set.files.every((f) => f.size_bytes === 1024 && /^[0-9a-f]{64}$/.test(f.sha256))).toBe(true);
      expect(set.participants).toHaveLength(2);
    }
    // Feed order: accepted_at oldest first, ids distinct, the last set's id 249,999 above the first's.
    const times = all.map((s) => Date.parse(s.accepted_at ?? ''));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(all.map((s) => s.id)).size).toBe(all.length);
    expect(all.at(-1)!.id - all[0]!.id).toBe(SETS - 1);
    expect(new Set(all.flatMap((s) => s.files.map((f) => f.sha256))).size).toBe(all.length * 4);

    const detail = await getJson<{ collection: ApiCollectionDetail }>(`${base}/collections/${svc.mainCollection}`, svc.mainKey);
    expect(detail.body.collection.sets.accepted).toBe(SETS);
    expect(detail.body.collection.quotas.reduce((n, q) => n + q.accepted, 0)).toBe(SETS);
  });

  it('serves a file whose SHA-256 matches its listing, ranges of it, its set and its consents', async () => {
    const set = (await page(LAST_PAGE)).body.sets.at(-1)!;
    const file = set.files[2]!;
    const body = await getBytes(file.url, svc.mainKey);
    expect(body.status).toBe(200);
    expect(body.body.length).toBe(1024);
    expect(sha256(body.body)).toBe(file.sha256);
    expect(body.headers.etag).toBe(`"${file.sha256}"`);
    const part = await getBytes(file.url, svc.mainKey, { range: 'bytes=100-199' });
    expect(part.status).toBe(206);
    expect(part.body.equals(body.body.subarray(100, 200))).toBe(true);

    const one = await getJson<{ set: ApiSet }>(`${base}/collections/${svc.mainCollection}/sets/${set.id}`, svc.mainKey);
    expect(one.body.set).toEqual(set);
    for (const p of set.participants) {
      const consent = await getJson<{ consent: { id: number; set_id: number; participant_id: number } }>(p.consent!.url, svc.mainKey);
      expect(consent.status).toBe(200);
      expect(consent.body.consent).toMatchObject({ id: p.consent!.id, set_id: set.id, participant_id: p.id });
    }
    // The other client sees none of it.
    expect((await getBytes(file.url, svc.otherKey)).status).toBe(404);
  });

  it('serves the same bytes for the same (set, slot) in another service with the same seed', async () => {
    const small = await startTestService({ sets: 10, lazy: true, fileSize: 1024 });
    try {
      const here = (await page(1)).body.sets[0]!.files[0]!;
      const there = (await getJson<ApiSetsPage>(`${small.deliveryBaseUrl}/collections/${small.mainCollection}/sets`, small.mainKey)).body.sets[0]!.files[0]!;
      expect(there.url.replace(small.deliveryBaseUrl, '')).toBe(here.url.replace(base, ''));
      expect(there.sha256).toBe(here.sha256);
    } finally {
      await small.stop();
    }
  });

  it('filters by updated_since and lists live sets after the lazy ones', async () => {
    const lastLazy = (await page(LAST_PAGE)).body.sets.at(-1)!;
    const tenth = (await page(LAST_PAGE)).body.sets[189]!;
    const tail = await getJson<ApiSetsPage>(`${base}/collections/${svc.mainCollection}/sets?updated_since=${tenth.updated_at}`, svc.mainKey);
    expect(tail.body.total).toBe(10);
    expect(tail.body.sets.map((s) => s.id)).toEqual((await page(LAST_PAGE)).body.sets.slice(190).map((s) => s.id));

    const added = await svc.admin.addSets(svc.mainCollection, { count: 10 });
    const fresh = await getJson<ApiSetsPage>(`${base}/collections/${svc.mainCollection}/sets?updated_since=${lastLazy.updated_at}`, svc.mainKey);
    expect(fresh.body.total).toBe(10);
    expect(fresh.body.sets.map((s) => s.id)).toEqual(added.map((s) => s.id));
    const grown = await page(LAST_PAGE + 1);
    expect(grown.body).toMatchObject({ total: SETS + 10, has_more: false });
    expect(grown.body.sets.map((s) => s.id)).toEqual(added.map((s) => s.id));
    const file = grown.body.sets[0]!.files[0]!;
    expect(sha256((await getBytes(file.url, svc.mainKey)).body)).toBe(file.sha256);
  });

  it('holds no record per lazy set', async () => {
    // The admin state lists the store's own records: the live sets only, never the lazy ones.
    const state = await svc.admin.state();
    const main = state.collections.find((c) => c.id === svc.mainCollection)!;
    expect(main.accepted_sets.length).toBeLessThanOrEqual(10);
    // 250,000 sets with 1,000,000 file and 500,000 consent records would be hundreds of MB.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(100 * 1024 * 1024);
  });
});

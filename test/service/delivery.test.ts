// Contract tests of the delivery API's JSON endpoints against a real in-process service.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectJsonError,
  getJson,
  startTestService,
  walkSets,
  type ApiCollectionDetail,
  type ApiCollectionSummary,
  type ApiSet,
  type ApiSetsPage,
  type TestService,
} from './support';

const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let svc: TestService;
let base: string;

beforeAll(async () => {
  svc = await startTestService({ sets: 23 });
  base = svc.deliveryBaseUrl;
});
afterAll(async () => {
  await svc.stop();
});

describe('authentication', () => {
  it('answers 401 with an error body for missing, malformed, unknown, expired and revoked keys', async () => {
    const cases: Array<[string, Record<string, string>]> = [
      ['missing', {}],
      ['malformed scheme', { authorization: `Basic ${svc.mainKey}` }],
      ['bearer without key', { authorization: 'Bearer' }],
      ['unknown', { authorization: 'Bearer dsk_live_00000000000000000000000000000000' }],
      ['expired', { authorization: `Bearer ${svc.expiredKey}` }],
      ['revoked', { authorization: `Bearer ${svc.revokedKey}` }],
    ];
    for (const [name, headers] of cases) {
      for (const path of ['/me', '/collections', `/collections/${svc.mainCollection}/sets`, '/files/1']) {
        const res = await getJson(`${base}${path}`, null, headers);
        expect(res.status, `${name} ${path}`).toBe(401);
        expectJsonError(res, 401);
      }
    }
  });

  it('never echoes the key in an error', async () => {
    const res = await getJson<{ error: string }>(`${base}/me`, null, { authorization: `Bearer ${svc.expiredKey}` });
    expect(res.body.error).not.toContain(svc.expiredKey);
    expect(res.body.error).toMatch(/expired/);
    const revoked = await getJson<{ error: string }>(`${base}/me`, null, { authorization: `Bearer ${svc.revokedKey}` });
    expect(revoked.body.error).toMatch(/revoked/);
    expect(revoked.body.error).not.toContain(svc.revokedKey);
  });

  it('accepts a valid key and tells who it belongs to (GET /me)', async () => {
    const res = await getJson<{ client: { id: number; name: string; email: string }; api_key: { name: string; prefix: string; scopes: string[] } }>(`${base}/me`, svc.mainKey);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.client.name).toBe(svc.clients[0]?.name);
    expect(res.body.client.email).toMatch(/@/);
    expect(Number.isInteger(res.body.client.id)).toBe(true);
    expect(res.body.api_key.scopes).toContain('collections:read');
    expect(svc.mainKey.startsWith(res.body.api_key.prefix)).toBe(true);
    expect(res.body.api_key.prefix.length).toBeLessThan(svc.mainKey.length / 2);
    expect(JSON.stringify(res.body)).not.toContain(svc.mainKey);
  });
});

describe('collections', () => {
  it('lists only the caller\'s collections, newest first', async () => {
    const res = await getJson<{ collections: ApiCollectionSummary[] }>(`${base}/collections`, svc.mainKey);
    expect(res.status).toBe(200);
    const ids = res.body.collections.map((c) => c.id);
    expect(new Set(ids)).toEqual(new Set(svc.clients[0]?.collections));
    const created = res.body.collections.map((c) => Date.parse(c.created_at));
    expect([...created].sort((a, b) => b - a)).toEqual(created);
    for (const c of res.body.collections) {
      expect(c.created_at).toMatch(ISO_MS_UTC);
      expect(c.deadline === null || ISO_MS_UTC.test(c.deadline)).toBe(true);
      expect(c.price_per_set).toMatch(/^\d+\.\d{2}$/);
      expect(c.currency).toMatch(/^[A-Z]{3}$/);
      expect(c.status).toBe('active');
    }
    expect(res.body.collections.some((c) => c.deadline === null)).toBe(true);
    const other = await getJson<{ collections: ApiCollectionSummary[] }>(`${base}/collections`, svc.otherKey);
    expect(new Set(other.body.collections.map((c) => c.id))).toEqual(new Set(svc.clients[1]?.collections));
  });

  it('gives the detail with spec, quotas consistent with the sets, and set counts by state', async () => {
    const res = await getJson<{ collection: ApiCollectionDetail }>(`${base}/collections/${svc.mainCollection}`, svc.mainKey);
    expect(res.status).toBe(200);
    const c = res.body.collection;
    expect(c.id).toBe(svc.mainCollection);
    expect(c.spec.modality).toBe('video');
    expect(c.spec.slots.map((s) => s.index)).toEqual([1, 2, 3, 4]);
    for (const slot of c.spec.slots) expect(slot.key && slot.title && slot.description).toBeTruthy();
    expect(c.spec.media_rules.formats.length).toBeGreaterThan(0);
    expect(c.spec.participant_fields).toContain(c.spec.quota_field);
    expect(c.spec.recruitment_status).toBe('open');
    expect(c.sets.accepted).toBe(23);
    expect(c.sets.in_review).toBeGreaterThan(0);
    expect(c.sets.in_progress).toBeGreaterThan(0);
    const sumAccepted = c.quotas.reduce((n, q) => n + q.accepted, 0);
    expect(sumAccepted).toBe(c.sets.accepted);
    for (const q of c.quotas) {
      expect(q.group).toBe(c.spec.quota_field);
      expect(q.available).toBe(Math.max(0, q.target - q.accepted - q.reserved));
      expect(q.status).toBe('open');
    }
    // The accepted tallies follow the leads' quota groups of the accepted sets.
    const sets = await walkSets(base, svc.mainKey, svc.mainCollection);
    const byGroup = new Map<string, number>();
    for (const s of sets) {
      const lead = s.participants.find((p) => p.role === 'A');
      byGroup.set(lead?.quota_group.value ?? '', (byGroup.get(lead?.quota_group.value ?? '') ?? 0) + 1);
    }
    for (const q of c.quotas) expect(q.accepted).toBe(byGroup.get(q.value) ?? 0);
  });

  it('answers 404 (never 403) for another client\'s or a missing collection', async () => {
    const foreign = svc.clients[1]?.collections[0];
    for (const path of [`/collections/${foreign}`, `/collections/${foreign}/sets`, '/collections/999999', '/collections/999999/sets', '/collections/abc']) {
      expectJsonError(await getJson(`${base}${path}`, svc.mainKey), 404);
    }
  });
});

describe('sets feed', () => {
  const page = (query: string) => getJson<ApiSetsPage>(`${base}/collections/${svc.mainCollection}/sets${query}`, svc.mainKey);

  it('defaults to accepted sets, page 1, 50 per page', async () => {
    const res = await page('');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, per_page: 50, total: 23, has_more: false });
    expect(res.body.sets).toHaveLength(23);
    for (const s of res.body.sets) expect(s.status).toBe('accepted');
  });

  it('orders accepted sets by accepted_at, oldest first, ties by id, and the seed has ties and id order that differs', async () => {
    const sets = (await page('?per_page=200')).body.sets;
    const key = (s: ApiSet) => [Date.parse(s.accepted_at ?? ''), s.id] as const;
    for (let i = 1; i < sets.length; i++) {
      const [a, ai] = key(sets[i - 1] as ApiSet);
      const [b, bi] = key(sets[i] as ApiSet);
      expect(a < b || (a === b && ai < bi), `position ${i}`).toBe(true);
    }
    const ids = sets.map((s) => s.id);
    expect(ids).not.toEqual([...ids].sort((a, b) => a - b));
    const updated = sets.map((s) => s.updated_at);
    expect(new Set(updated).size).toBeLessThan(updated.length);
    // Some sets were edited after acceptance.
    expect(sets.some((s) => s.updated_at !== s.accepted_at)).toBe(true);
  });

  it('pages with exact total and has_more arithmetic and no overlap', async () => {
    const all = (await page('?per_page=200')).body.sets.map((s) => s.id);
    const seen: number[] = [];
    for (let p = 1; p <= 5; p++) {
      const res = await page(`?per_page=5&page=${p}`);
      expect(res.status).toBe(200);
      expect(res.body.page).toBe(p);
      expect(res.body.per_page).toBe(5);
      expect(res.body.total).toBe(23);
      expect(res.body.has_more).toBe(p * 5 < 23);
      expect(res.body.sets).toHaveLength(p < 5 ? 5 : 3);
      seen.push(...res.body.sets.map((s) => s.id));
    }
    expect(seen).toEqual(all);
    const exact = await page('?per_page=23&page=1');
    expect(exact.body.has_more).toBe(false);
    const oneLess = await page('?per_page=22&page=1');
    expect(oneLess.body.has_more).toBe(true);
  });

  it('answers a page past the end with 200, no sets and has_more false', async () => {
    const res = await page('?per_page=10&page=9');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sets: [], page: 9, per_page: 10, total: 23, has_more: false });
  });

  it('refuses per_page outside 1..200 and a page that is not a positive integer with 400', async () => {
    for (const q of ['per_page=0', 'per_page=201', 'per_page=-1', 'per_page=abc', 'per_page=2.5', 'page=0', 'page=-1', 'page=1.5', 'page=x', 'page=', 'per_page=1&per_page=2']) {
      const res = await page(`?${q}`);
      expectJsonError(res, 400);
    }
    expect((await page('?per_page=200')).status).toBe(200);
    expect((await page('?per_page=1')).status).toBe(200);
  });

  it('filters updated_since strictly after the instant', async () => {
    const sets = (await page('?per_page=200')).body.sets;
    const sorted = [...new Set(sets.map((s) => s.updated_at))].sort();
    const pivot = sorted[Math.floor(sorted.length / 2)] as string;
    const expected = sets.filter((s) => Date.parse(s.updated_at) > Date.parse(pivot)).map((s) => s.id);
    const res = await page(`?per_page=200&updated_since=${encodeURIComponent(pivot)}`);
    expect(res.status).toBe(200);
    expect(res.body.sets.map((s) => s.id)).toEqual(expected);
    expect(res.body.total).toBe(expected.length);
    expect(res.body.sets.every((s) => s.updated_at !== pivot)).toBe(true);
    // One millisecond earlier includes the sets at the pivot.
    const before = new Date(Date.parse(pivot) - 1).toISOString();
    const wider = await page(`?per_page=200&updated_since=${encodeURIComponent(before)}`);
    expect(wider.body.total).toBe(expected.length + sets.filter((s) => s.updated_at === pivot).length);
    // Other ISO 8601 spellings of the same instant give the same answer.
    const offset = pivot.replace('Z', '+00:00');
    expect((await page(`?per_page=200&updated_since=${encodeURIComponent(offset)}`)).body.total).toBe(expected.length);
    // Far future: nothing.
    expect((await page('?updated_since=2999-01-01T00:00:00Z')).body).toMatchObject({ sets: [], total: 0, has_more: false });
  });

  it('refuses a malformed updated_since with 400', async () => {
    for (const bad of ['yesterday', '2026-13-45T00:00:00Z', '2026-02-30T00:00:00Z', '2026-01-01T25:00:00Z', '1700000000', '', '2026-1-1']) {
      expectJsonError(await page(`?updated_since=${encodeURIComponent(bad)}`), 400);
    }
  });

  it('lists other statuses as metadata only, with files that are never served', async () => {
    for (const status of ['in_review', 'rework', 'rejected', 'in_progress']) {
      const res = await page(`?status=${status}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBeGreaterThan(0);
      for (const set of res.body.sets) {
        expect(set.status).toBe(status);
        expect(set.files.length).toBe(4);
        for (const file of set.files) {
          const download = await getJson(file.url, svc.mainKey);
          expectJsonError(download, 404);
        }
        for (const p of set.participants) if (p.consent) expectJsonError(await getJson(p.consent.url, svc.mainKey), 404);
      }
    }
    expectJsonError(await page('?status=nonsense'), 400);
  });

  it('describes sets, participants and files as the spec says', async () => {
    const sets = (await page('?per_page=200')).body.sets;
    const detail = await getJson<{ collection: ApiCollectionDetail }>(`${base}/collections/${svc.mainCollection}`, svc.mainKey);
    const slots = detail.body.collection.spec.slots;
    let nullConsents = 0;
    for (const set of sets) {
      for (const t of [set.submitted_at, set.accepted_at, set.updated_at]) expect(t).toMatch(ISO_MS_UTC);
      expect(Date.parse(set.updated_at)).toBeGreaterThanOrEqual(Date.parse(set.accepted_at ?? ''));
      expect(set.participants.map((p) => p.role)).toEqual(['A', 'B']);
      for (const p of set.participants) {
        expect(p.participant_ref).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(Number.isInteger(p.age)).toBe(true);
        expect(typeof p.gender).toBe('string');
        expect(typeof p.ethnicity).toBe('string');
        expect(p.skin_tone).toBeNull();
        expect(p.quota_group.group).toBe(detail.body.collection.spec.quota_field);
        if (p.consent === null) nullConsents++;
        else {
          expect(p.consent.signer_name).toMatch(/^\S+ \S/);
          expect(p.consent.url).toBe(`${base}/consents/${p.consent.id}`);
          expect(p.consent.version).toBe(detail.body.collection.spec.consent_version);
        }
      }
      expect(set.files.map((f) => [f.slot_index, f.slot_key])).toEqual(slots.map((s) => [s.index, s.key]));
      for (const f of set.files) {
        // The main collection takes mp4 and mov: its real videos are of both.
        expect(f.filename).toMatch(new RegExp(`^set_${set.id}_slot_${String(f.slot_index).padStart(2, '0')}\\.(mp4|mov)$`));
        expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
        expect(f.size_bytes).toBeGreaterThan(1000);
        expect(f.url).toBe(`${base}/files/${f.id}`);
        expect(f.check_status).toBe('passed');
        expect(f.content_type).toBe(f.filename.endsWith('.mov') ? 'video/quicktime' : 'video/mp4');
      }
    }
    expect(nullConsents).toBeGreaterThan(0);
    expect(sets.some((s) => s.is_gold)).toBe(true);
    expect(new Set(sets.flatMap((s) => s.files.map((f) => f.sha256))).size).toBe(sets.length * 4);
  });

  it('keeps participants pseudonymous outside the consent reference', async () => {
    const set = (await page('?per_page=1')).body.sets[0] as ApiSet;
    for (const p of set.participants) {
      const { consent: _consent, ...rest } = p;
      expect(Object.keys(rest).sort()).toEqual(['age', 'ethnicity', 'gender', 'id', 'participant_ref', 'quota_group', 'role', 'skin_tone']);
    }
  });
});

describe('single set', () => {
  it('returns a set of the collection and 404 for sets of other collections or clients', async () => {
    const first = (await getJson<ApiSetsPage>(`${base}/collections/${svc.mainCollection}/sets?per_page=1`, svc.mainKey)).body.sets[0] as ApiSet;
    const res = await getJson<{ set: ApiSet }>(`${base}/collections/${svc.mainCollection}/sets/${first.id}`, svc.mainKey);
    expect(res.status).toBe(200);
    expect(res.body.set).toEqual(first);
    const second = svc.clients[0]?.collections[1] as number;
    expectJsonError(await getJson(`${base}/collections/${second}/sets/${first.id}`, svc.mainKey), 404);
    expectJsonError(await getJson(`${base}/collections/${svc.mainCollection}/sets/99999999`, svc.mainKey), 404);
    const foreign = svc.clients[1]?.collections[0] as number;
    const foreignSet = (await getJson<ApiSetsPage>(`${base}/collections/${foreign}/sets`, svc.otherKey)).body.sets[0] as ApiSet;
    expectJsonError(await getJson(`${base}/collections/${foreign}/sets/${foreignSet.id}`, svc.mainKey), 404);
    expectJsonError(await getJson(`${base}/collections/${svc.mainCollection}/sets/${foreignSet.id}`, svc.mainKey), 404);
    // Non-accepted sets are readable as metadata.
    const review = (await getJson<ApiSetsPage>(`${base}/collections/${svc.mainCollection}/sets?status=in_review`, svc.mainKey)).body.sets[0] as ApiSet;
    const reviewRes = await getJson<{ set: ApiSet }>(`${base}/collections/${svc.mainCollection}/sets/${review.id}`, svc.mainKey);
    expect(reviewRes.body.set.status).toBe('in_review');
    expect(reviewRes.body.set.accepted_at).toBeNull();
  });
});

describe('consents', () => {
  it('returns the full record with a release text snapshot; 404 for other clients and unknown ids', async () => {
    const sets = await walkSets(base, svc.mainKey, svc.mainCollection);
    const participant = sets.flatMap((s) => s.participants.map((p) => ({ set: s, p }))).find((x) => x.p.consent !== null);
    const ref = participant?.p.consent;
    if (!participant || !ref) throw new Error('seed has no consent');
    const res = await getJson<{ consent: Record<string, unknown> }>(ref.url, svc.mainKey);
    expect(res.status).toBe(200);
    expect(res.body.consent).toMatchObject({
      id: ref.id,
      version: ref.version,
      signed_at: ref.signed_at,
      signer_name: ref.signer_name,
      set_id: participant.set.id,
      participant_ref: participant.p.participant_ref,
    });
    expect(String(res.body.consent.release_text)).toMatch(/release/i);
    expect(typeof res.body.consent.signature).toBe('object');
    expectJsonError(await getJson(ref.url, svc.otherKey), 404);
    expectJsonError(await getJson(`${base}/consents/1`, svc.mainKey), 404);
  });
});

describe('routing', () => {
  it('answers unknown endpoints with 404 and non-GET methods with 405, both as JSON errors', async () => {
    expectJsonError(await getJson(`${base}/nope`, svc.mainKey), 404);
    expectJsonError(await getJson(`${svc.origin}/api/v2/partner/me`, svc.mainKey), 404);
    const { request } = await import('undici');
    const res = await request(`${base}/collections`, { method: 'POST', headers: { authorization: `Bearer ${svc.mainKey}` } });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(JSON.parse(await res.body.text())).toHaveProperty('error');
  });
});

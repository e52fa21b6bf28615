// The service changes while a page walk is under way (pages slowed by a latency fault on the
// sets feed, mutations through the admin API meanwhile): sets accepted, edited and moved out of
// accepted. Moving a set of an earlier page out of accepted shifts the later pages back, which
// a naive page walk misses for good once its watermark has passed them. The next sync must
// converge to the service's state with no set missed.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runSync } from '../../src-main/sync/engine';
import type { SyncEvent } from '../../src-shared/sync-events';
import { expectDatasetMatches, FAST_TUNING, mainCollection, servedSets, sha256sumCheck, sync, tempDir, useService } from '../engine/helpers';
import { checkDatasetInvariants, servedFileHashes } from './support';

// More than one page of 200 sets, one small file each.
const SETS = 430;
const env = useService({ sets: SETS, fileSize: 1024, slots: 1, seed: 101 });
let work: string;

beforeAll(async () => {
  work = await tempDir('dsync-changes-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

it('sets accepted, edited and moved out of accepted during a page walk: the next sync converges, no set missed', { timeout: 120_000 }, async () => {
  const { svc } = env;
  const { apiKey, collectionId } = mainCollection(svc);
  const dest = path.join(work, 'ds');
  const before = (await servedSets(svc, collectionId)).map((s) => s.id);
  expect(before.length).toBe(SETS);

  await svc.admin.addFault({ path: '/sets$' }, { type: 'latency', ms: 400 });
  let mutated: Promise<void> | undefined;
  const mutate = async () => {
    // On page 1 (already fetched): 6 sets leave accepted, 2 are edited. Plus 3 newly accepted sets.
    for (const id of before.slice(10, 16)) await svc.admin.setStatus(id, 'rejected');
    for (const id of before.slice(20, 22)) await svc.admin.editSet(id, { slot_index: 1 });
    await svc.admin.addSets(collectionId, { count: 3 });
    // And a set of the last page leaves accepted before that page is fetched.
    await svc.admin.setStatus(before[SETS - 1]!, 'in_review');
  };
  const events: SyncEvent[] = [];
  const first = await runSync({ baseUrl: svc.deliveryBaseUrl, apiKey, collectionId, dest, tuning: FAST_TUNING, concurrency: 4 }, (e) => {
    events.push(e);
    if (!mutated && e.type === 'set' && e.state === 'discovered') mutated = mutate();
  });
  await mutated;
  expect(first.fatal).toBeUndefined();
  // The walk noticed the list changing under it and walked it again.
  expect(events.some((e) => e.type === 'warning' && /changed during the walk/.test(e.message))).toBe(true);
  await svc.admin.clearFaults();

  // Whatever the first walk saw, the next (incremental) sync converges exactly.
  const second = await sync(svc, dest);
  expect(second.summary.exitCode).toBe(0);
  const served = await servedSets(svc, collectionId);
  expect(served.length).toBe(SETS - 6 - 1 + 3);
  await expectDatasetMatches(svc, dest, collectionId);
  const local = new Set((await fs.readdir(path.join(dest, 'sets'))).map(Number));
  const missing = served.map((s) => s.id).filter((id) => !local.has(id));
  expect(missing).toEqual([]);
  await checkDatasetInvariants(dest, await servedFileHashes(svc, collectionId)).catch((e: Error) => {
    // Files of sets that left accepted are kept by design (not served any more): only those may be "not served".
    if (!/is not a served file/.test(e.message)) throw e;
  });
  expect((await sha256sumCheck(dest)).code).toBe(0);
  // Edited files carry their new content.
  for (const s of served.filter((x) => before.slice(20, 22).includes(x.id))) {
    const entry = (await fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8')).split('\n').find((l) => l.endsWith(`sets/${s.id}/${s.files[0]!.filename}`));
    expect(entry?.split('  ')[0]).toBe(s.files[0]!.sha256);
  }
});

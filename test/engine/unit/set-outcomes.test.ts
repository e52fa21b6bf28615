// Plan, transfer and set outcomes as unit tests: whole syncs through the engine's face
// (`sync` with injected deps: a FakeDelivery client, in-memory destinations, a clock whose
// sleeps end at once), no socket and no dataset file, so each runs in a small fraction of a
// second. They name only the face and the destination's interface, not the engine's internal
// functions, so they hold while set-plan.ts and transfer.ts are reworked. What only real HTTP,
// disks and buckets show stays in the integration tests (test/engine/*.test.ts, test/cli).
import { peekHeadRow } from '../../../src-main/sync/state/published-head';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryDestination } from '../../../src-main/sync/destination/memory/backend';
import { forgetMemoryStore, memoryStore } from '../../../src-main/sync/destination/memory/memory-store';
import { repair, sync, verify, type Clock, type Destination, type EngineDeps } from '../../../src-main/sync/engine';
import type { SyncEvent, SyncSummary } from '../../../src-shared/sync-events';
import { BASE_URL, COLLECTION_ID, FakeDelivery, fileBody } from './fake-delivery';

/** Time moves only when the engine sleeps (back-off), and a sleep ends on the next turn. */
class InstantClock implements Clock {
  private t = Date.parse('2030-03-02T00:00:00Z');
  now(): number {
    return this.t;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.t += ms;
    await new Promise((r) => setImmediate(r));
  }
}

/** Each test is well under a second; a run past this fails it (the suite's point is speed). */
const FAST_MS = 1000;
let n = 0;

interface World {
  service: FakeDelivery;
  name: string;
  dest: Destination;
  consents: Destination;
  withdrawn: Destination;
  /** One sync (or repair: verify, then sync what is missing or changed) with the test's deps. */
  run(how?: 'sync' | 'repair'): Promise<{ summary: SyncSummary; events: SyncEvent[]; ms: number }>;
}

let world: World;
let work: string;

beforeEach(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-unit-'));
  const name = `unit-${process.pid}-${++n}`;
  const at = (sub: string) => ({ stateDir: path.join(work, sub) });
  const service = new FakeDelivery();
  const deps: EngineDeps = {
    client: service,
    clock: new InstantClock(),
    destination: createMemoryDestination(name, at('state')),
    consents: createMemoryDestination(`${name}.consents`, at('consents-state')),
    withdrawn: createMemoryDestination(`${name}.withdrawn`, at('withdrawn-state')),
  };
  const options = {
    baseUrl: BASE_URL,
    apiKey: 'dsk_unit_key_not_secret',
    collectionId: COLLECTION_ID,
    dest: `memory://${name}`,
    concurrency: 4,
    tuning: { retryBaseMs: 1, maxAttempts: 4, stallTimeoutMs: 5000, progressIntervalMs: 50, hashWorkers: 0 },
  };
  world = {
    service,
    name,
    dest: deps.destination!,
    consents: deps.consents!,
    withdrawn: deps.withdrawn!,
    async run(how = 'sync') {
      const events: SyncEvent[] = [];
      const started = performance.now();
      const summary = how === 'repair' ? await repair(options, (e) => events.push(e), undefined, deps) : await sync(options, (e) => events.push(e), deps);
      return { summary, events, ms: performance.now() - started };
    },
  };
});

afterEach(async () => {
  for (const suffix of ['', '.consents', '.withdrawn']) forgetMemoryStore(`${world.name}${suffix}`);
  await fs.rm(work, { recursive: true, force: true });
});

async function keys(dest: Destination, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for await (const o of dest.list(prefix)) out.push(o.key);
  return out;
}

async function bytesAt(dest: Destination, key: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of dest.read(key)) parts.push(chunk);
  return Buffer.concat(parts);
}

async function pendingSets(dest: Destination): Promise<number[]> {
  return peekHeadRow(dest.stateDir)!.pendingSets;
}

describe('set outcomes against the in-memory destination and a fake delivery client', () => {
  it('a set whose files are all up to date: the next sync downloads nothing and asks for no body', async () => {
    world.service.putSet(1, [fileBody(1, 1), fileBody(1, 2)]);
    world.service.putSet(2, [fileBody(2, 1), fileBody(2, 2)]);
    const first = await world.run();
    expect(first.summary).toMatchObject({ exitCode: 0, setsComplete: 2, filesDownloaded: 4, filesFailed: 0 });
    expect((await bytesAt(world.dest, 'sets/2/set_2_slot_02.mp4')).equals(fileBody(2, 2))).toBe(true);
    expect(await keys(world.consents)).toEqual(['100.json', '200.json']);

    const asked = world.service.fileRequests.length;
    const again = await world.run();
    expect(again.summary).toMatchObject({ exitCode: 0, filesDownloaded: 0, filesFailed: 0, bytesDownloaded: 0 });
    expect(world.service.fileRequests.length).toBe(asked);
    // Listed again by the walk's overlap, the sets are up to date from the records: nothing hashed.
    expect(again.summary.bytesHashed).toBe(0);
    expect(first.ms + again.ms).toBeLessThan(FAST_MS);
  });

  it('a body that does not hash is fetched again, and the set completes with the right bytes', async () => {
    const record = world.service.putSet(3, [fileBody(3, 1), fileBody(3, 2)]);
    world.service.failFile(record.files[1]!.url, 'corrupt');
    const { summary, events, ms } = await world.run();
    expect(summary).toMatchObject({ exitCode: 0, setsComplete: 1, setsFailed: 0, filesDownloaded: 2, filesFailed: 0 });
    expect(world.service.fileRequests.filter((u) => u === record.files[1]!.url)).toHaveLength(2);
    expect((await bytesAt(world.dest, 'sets/3/set_3_slot_02.mp4')).equals(fileBody(3, 2))).toBe(true);
    // The manifest lists the file with its served hash: only verified bytes were committed.
    expect(await world.dest.readText('manifest.csv')).toContain(record.files[1]!.sha256);
    expect(events.some((e) => e.type === 'set' && e.setId === 3 && e.state === 'complete')).toBe(true);
    expect(ms).toBeLessThan(FAST_MS);
  });

  it('a file that is 404 fails its set, which stays pending; the other sets complete; the next sync completes it', async () => {
    world.service.putSet(4, [fileBody(4, 1)]);
    const broken = world.service.putSet(5, [fileBody(5, 1), fileBody(5, 2)]);
    world.service.failFile(broken.files[0]!.url, 'not_found', 100);
    const first = await world.run();
    expect(first.summary).toMatchObject({ exitCode: 1, setsComplete: 1, setsFailed: 1, filesFailed: 1 });
    expect(first.summary.failures).toEqual([expect.objectContaining({ setId: 5, code: 'not_served' })]);
    expect(await pendingSets(world.dest)).toEqual([5]);
    // Only verified files are listed: the missing one is in no dataset file.
    const manifest = (await world.dest.readText('manifest.csv'))!;
    expect(manifest).toContain('sets/4/set_4_slot_01.mp4');
    expect(manifest).not.toContain('sets/5/set_5_slot_01.mp4');

    world.service.healFile(broken.files[0]!.url);
    const second = await world.run();
    expect(second.summary).toMatchObject({ exitCode: 0, setsFailed: 0, filesDownloaded: 1, filesFailed: 0 });
    expect(await pendingSets(world.dest)).toEqual([]);
    expect(await world.dest.readText('manifest.csv')).toContain('sets/5/set_5_slot_01.mp4');
    expect(first.ms + second.ms).toBeLessThan(FAST_MS);
  });

  it('a set that leaves accepted moves to the withdrawn destination, its consents with it, and leaves every dataset file', async () => {
    world.service.putSet(6, [fileBody(6, 1)]);
    world.service.putSet(7, [fileBody(7, 1), fileBody(7, 2)]);
    const first = await world.run();
    expect(first.summary).toMatchObject({ exitCode: 0, setsComplete: 2 });

    world.service.setStatus(7, 'rejected');
    const second = await world.run();
    expect(second.summary).toMatchObject({ exitCode: 0, withdrawnSets: 1, filesDownloaded: 0 });
    expect(second.events.some((e) => e.type === 'set' && e.setId === 7 && e.state === 'withdrawn')).toBe(true);
    expect(await keys(world.dest, 'sets/7/')).toEqual([]);
    expect(await keys(world.withdrawn)).toEqual(['7/consents/700.json', '7/set.json', '7/set_7_slot_01.mp4', '7/set_7_slot_02.mp4']);
    expect((await bytesAt(world.withdrawn, '7/set_7_slot_02.mp4')).equals(fileBody(7, 2))).toBe(true);
    expect(await keys(world.consents)).toEqual(['600.json']);
    for (const file of ['manifest.csv', 'SHA256SUMS']) {
      const text = (await world.dest.readText(file))!;
      expect(text, file).toContain('sets/6/');
      expect(text, file).not.toContain('sets/7/');
    }
    const participants = (await world.dest.readText('participants.csv'))!;
    expect(participants).toMatch(/\n6,/);
    expect(participants).not.toMatch(/\n7,/);
    expect(first.ms + second.ms).toBeLessThan(FAST_MS);
  });

  it('verify finds a file changed behind the engine\'s back, which a sync trusts and a repair fetches again', async () => {
    world.service.putSet(8, [fileBody(8, 1), fileBody(8, 2)]);
    const first = await world.run();
    expect(first.summary.exitCode).toBe(0);
    // Same size, other bytes, the recorded stamp kept: only a hash can tell.
    const stamp = (await world.dest.stat('sets/8/set_8_slot_01.mp4'))!.stamp;
    memoryStore(world.name).objects.set('sets/8/set_8_slot_01.mp4', { bytes: fileBody(8, 1, 2), stamp });
    expect(await verify(world.dest)).toMatchObject({ ok: 1, missing: [], changed: ['sets/8/set_8_slot_01.mp4'], extra: [] });
    expect((await world.run()).summary.filesDownloaded).toBe(0);

    const repaired = await world.run('repair');
    expect(repaired.summary).toMatchObject({ exitCode: 0, filesDownloaded: 1 });
    expect(await verify(world.dest)).toMatchObject({ ok: 2, changed: [] });
    expect(first.ms + repaired.ms).toBeLessThan(FAST_MS);
  });
});

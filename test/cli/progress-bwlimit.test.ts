// The CLI's side of progress and the bandwidth limit: --json progress events are the engine's
// (setsTotal from the first, monotonic); the human line on stderr shows sets n/N, the
// percentage, rate, ETA and the phase; --bwlimit takes rclone's syntax and anything else is a
// usage error (exit 2) before anything is written.
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../src-shared/sync-events';
import { progressLine } from '../../src-main/cli/sync-display';
import { expectDatasetMatches, mainCollection, parseNdjson, runCli, tempDir, useService } from '../engine/helpers';

const MiB = 1024 * 1024;
const env = useService({ sets: 3, fileSize: MiB, slots: 1, seed: 41 });
let work: string;

beforeAll(async () => {
  work = await tempDir('dsync-cli-bw-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

const withKey = () => ({ DATASET_SYNC_API_KEY: mainCollection(env.svc).apiKey });
const syncArgs = (dest: string, ...extra: string[]) => ['sync', '--base-url', env.svc.deliveryBaseUrl, '--collection', String(env.collectionId), '--dest', dest, ...extra];

describe('dataset-sync sync --bwlimit', () => {
  it('--json with --bwlimit 1M: progress events with setsTotal from the first, never going back, and a capped rate', async () => {
    const dest = path.join(work, 'json-ds');
    const r = await runCli(syncArgs(dest, '--json', '--bwlimit', '1M'), { env: withKey() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const events = parseNdjson(r.stdout);
    const progress = events.filter((e): e is ProgressEvent => e.type === 'progress');
    expect(progress[0]!.setsTotal).toBe(3);
    for (let i = 1; i < progress.length; i++) {
      for (const k of ['setsDone', 'bytesDone', 'filesDone', 'fraction', 'bytesTotal', 'setsTotal'] as const) expect(progress[i]![k]).toBeGreaterThanOrEqual(progress[i - 1]![k]);
    }
    expect(progress.at(-1)).toMatchObject({ setsDone: 3, fraction: 1 });
    // 3 MiB at 1 MiB/s: the shown rate never runs far above the cap (the bucket lets a tenth of a second through at once).
    for (const p of progress) expect(p.bytesPerSecond).toBeLessThan(1.5 * MiB);
    await expectDatasetMatches(env.svc, dest, env.collectionId);
  }, 60_000);

  it('human progress on stderr: sets n/N, percentage, rate, ETA and phase', async () => {
    const dest = path.join(work, 'human-ds');
    const r = await runCli(syncArgs(dest, '--bwlimit', '4M'), { env: withKey() });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\d+%\s+sets \d+\/3 .*\/s\s+ETA \S+\s+(listing sets|downloading|checking partial downloads|writing the manifest)/);
  }, 60_000);

  it.each(['fast', '4X', '1.2.3', '10M:5M', ''])('--bwlimit "%s" is a usage error (exit 2), nothing written', async (bad) => {
    const dest = path.join(work, `bad-${bad.replace(/\W/g, '_') || 'empty'}`);
    const r = await runCli(syncArgs(dest, '--bwlimit', bad), { env: withKey() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--bwlimit must be a rate like 4M (4 MiB/s), 500k (500 KiB/s)');
    expect(existsSync(dest)).toBe(false);
  });

  it('--bwlimit off syncs without a limit', async () => {
    const dest = path.join(work, 'off-ds');
    const r = await runCli(syncArgs(dest, '--bwlimit', 'off', '--json'), { env: withKey() });
    expect(r.code).toBe(0);
  }, 60_000);
});

describe('the human progress line', () => {
  const base: ProgressEvent = {
    type: 'progress', phase: 'listing', paused: false, setsDone: 12, setsTotal: 200, bytesDone: 5 * MiB, bytesTotal: 40 * MiB, filesDone: 3, filesTotal: 10,
    fraction: 0.06, bytesPerSecond: 2 * MiB, etaSeconds: null, bytesRedownloaded: 0, active: [],
  };
  it('shows sets, the engine fraction as a percentage, the rate, an unknown ETA and the phase', () => {
    expect(progressLine(base)).toMatch(/ 6% {2}sets 12\/200 .* 2\.00 MiB\/s {2}ETA --:-- {2}listing sets$/);
  });
  it('shows the walk retry countdown and a pause', () => {
    expect(progressLine({ ...base, phase: 'retrying', retry: { attempt: 3, of: 6, inSeconds: 8 } })).toMatch(/ retrying: attempt 3 of 6 in 8 s$/);
    expect(progressLine({ ...base, paused: true })).toMatch(/paused$/);
  });
});

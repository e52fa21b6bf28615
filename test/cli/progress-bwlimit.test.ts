// The CLI's side of progress and the bandwidth limit: --json progress events are the engine's
// (setsTotal from the first, monotonic); the human line on stderr shows sets n/N, the
// percentage, bytes and files of the best known totals (marked while estimated), rate, ETA and
// everything the sync is doing; in a terminal (a real pty) each file in flight shows its own
// non-zero rate; --bwlimit takes rclone's syntax and anything else is a usage error (exit 2)
// before anything is written.
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../src-shared/sync-events';
import { formatBytes } from '../../src-main/cli/format';
import { progressLine, SyncDisplay } from '../../src-main/cli/sync-display';
import { CLI, expectDatasetMatches, mainCollection, parseNdjson, runCli, tempDir, useService } from '../engine/helpers';

const MiB = 1024 * 1024;
const env = useService({ sets: 3, fileSize: MiB, slots: 1, seed: 41 });
/** Many small files: 16 in flight at once, each for a fraction of a second. */
const many16 = useService({ sets: 24, fileSize: 96 * 1024, slots: 2, seed: 42 });
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
    // Not a terminal: periodic lines, the first one before any set is listed, with no total to show.
    expect(r.stderr).toMatch(/ 0%\s+sets 0\/3\s+0 B\/\?\s+files 0\/\?/);
    expect(r.stderr).not.toMatch(/0 B\/0 B/);
  }, 60_000);

  it('in a terminal, each file in flight shows its own rate, never 0 B/s while its bytes flow', async () => {
    const dest = path.join(work, 'tty-ds');
    const many = many16;
    // `script` gives the CLI a real pty, so it draws its live block (ANSI redraws) as for a person.
    const args = ['sync', '--base-url', many.svc.deliveryBaseUrl, '--collection', String(many.collectionId), '--dest', dest, '--bwlimit', '2M'];
    const command = [process.execPath, CLI, ...args].map((a) => `'${a}'`).join(' ');
    const out = await new Promise<string>((resolve, reject) => {
      // A pty starts 0 columns wide (the display would cut lines at 40): widen it first.
      const child = spawn('script', ['-qefc', `stty cols 200; ${command}`, '/dev/null'], {
        env: { ...process.env, DATASET_SYNC_API_KEY: mainCollection(many.svc).apiKey },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}: ${text}`))));
    });
    // eslint-disable-next-line no-control-regex
    const lines = out.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').split(/\r?\n/);
    const fileLines = lines.filter((l) => /^\s+\d+%\s+\S+ \S*B\s+.*\ssets\/\d+\//.test(l));
    expect(fileLines.length).toBeGreaterThan(0);
    for (const l of fileLines) {
      const m = /^\s+(\d+)%\s+(\S+ \S*B)\s+(\S+ \S*B\/s)\s/.exec(l);
      expect(m, l).not.toBeNull();
      if (m![2] !== '0 B') expect(m![3], l).not.toBe('0 B/s');
    }
    // The words of overlapping phases are pinned by the unit test of progressLine above; whether a
    // redraw falls inside the overlap depends on the machine's load (.ci/run once missed it).
    await expectDatasetMatches(many.svc, dest, many.collectionId);
  }, 90_000);

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
    type: 'progress', phase: 'listing', phases: ['listing'], paused: false, setsDone: 12, setsTotal: 200, bytesDone: 5 * MiB, bytesTotal: 40 * MiB, filesDone: 3, filesTotal: 10,
    estimated: true, bytesTotalEstimate: 400 * MiB, filesTotalEstimate: 100,
    fraction: 0.06, bytesPerSecond: 2 * MiB, etaSeconds: null, bytesRedownloaded: 0, active: [],
  };
  it('shows sets, the engine fraction as a percentage, the rate, an unknown ETA and the phase', () => {
    expect(progressLine(base)).toMatch(/ 6% {2}sets 12\/200 .* \S+ \S*B\/s {2}ETA --:-- {2}listing sets$/);
  });
  it('marks estimated totals, says when none is known yet, and shows exact ones once every set is listed', () => {
    expect(progressLine(base)).toContain(`${formatBytes(5 * MiB)}/~${formatBytes(400 * MiB)}  files 3/~100  `);
    expect(progressLine({ ...base, bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: 0, bytesTotalEstimate: null, filesTotalEstimate: null })).toContain('0 B/?  files 0/?  ');
    expect(progressLine({ ...base, estimated: false, bytesTotalEstimate: 40 * MiB, filesTotalEstimate: 10 })).toContain(`${formatBytes(5 * MiB)}/${formatBytes(40 * MiB)}  files 3/10  `);
  });
  it('names listing and downloading together while they overlap', () => {
    expect(progressLine({ ...base, phases: ['listing', 'downloading'] })).toMatch(/ listing sets and downloading$/);
    expect(progressLine({ ...base, phase: 'downloading', phases: ['downloading'] })).toMatch(/ {2}downloading$/);
  });
  it('shows the walk retry countdown and a pause (no rate, no ETA while paused)', () => {
    expect(progressLine({ ...base, phase: 'retrying', phases: ['retrying', 'downloading'], retry: { attempt: 3, of: 6, inSeconds: 8 } })).toMatch(/ retrying: attempt 3 of 6 in 8 s and downloading$/);
    const paused = progressLine({ ...base, paused: true, bytesPerSecond: 0 });
    expect(paused).toMatch(/ {2}paused$/);
    expect(paused).not.toMatch(/ETA|\/s/);
  });
  it('in a terminal, says paused on each file line while paused', () => {
    let drawn = '';
    const out = { columns: 200, write: (text: string) => (drawn += text) } as unknown as NodeJS.WriteStream;
    const active = [{ fileId: 1, path: 'sets/1/set_1_slot_01.mp4', bytesDone: 930_000, sizeBytes: 1_000_000, bytesPerSecond: 0 }];
    new SyncDisplay(out, true).handle({ ...base, paused: true, bytesPerSecond: 0, active });
    // eslint-disable-next-line no-control-regex
    const fileLine = drawn.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').split('\n').find((l) => l.includes('set_1_slot_01'))!;
    expect(fileLine).toMatch(/^\s+93%\s+\S+ \S*B\s+paused {2}sets\/1\/set_1_slot_01\.mp4$/);
  });
});

// The media check (docs/contracts.md §1, media.csv; issue 22 point 2) as users run it: the CLI
// syncs the demo's real videos with the service's media faults on, probes every verified file
// with the real ffprobe (through a wrapper that logs its calls), writes media.csv, counts
// mediaProblems, and probes nothing again on a no-op sync. Without a prober the sync still exits
// 0: every file is `unprobed` and one warning says why. Tests that need ffprobe skip, saying
// why, where it is absent.
import type { SyncEvent } from '../../src-shared/sync-events';
import { phaseText } from '../../src-main/cli/sync-display';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CreateBucketCommand, GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceService } from '../../src-service/index';
import type { MediaFaultEntry } from '../../src-service/admin-client';
import { mainCollection, parseNdjson, runCli, tempDir, type Service } from '../engine/helpers';
import { toolPresent } from '../support/media-tools';
import { CEPH_MISSING, adminClient, keysUnder, needsCeph, startCephRgw, type CephRgw } from '../support/ceph-rgw';

const hasFfprobe = toolPresent('ffprobe');
const NO_FFPROBE = 'ffprobe is not installed (apt-get install ffmpeg)';

let svc: Service;
let work: string;
let collectionId: number;
let faults: MediaFaultEntry[];

beforeAll(async () => {
  work = await tempDir('dsync-media-');
  // Its own service (not useService): that one clears every fault, media faults included, after each test.
  svc = await startReferenceService({ dataDir: path.join(work, 'service'), seed: 7, sets: 6, slots: 2, mediaFaults: true });
  collectionId = mainCollection(svc).collectionId;
  faults = await svc.admin.listMediaFaults();
}, 120_000);
afterAll(async () => {
  await svc?.close();
  await fs.rm(work, { recursive: true, force: true });
});

function syncArgs(dest: string, ...extra: string[]): string[] {
  return ['sync', '--base-url', svc.deliveryBaseUrl, '--collection', String(collectionId), '--dest', dest, ...extra];
}

// The media check is on here (vitest.config.ts turns it off for the other tests).
const withKey = () => ({ DATASET_SYNC_API_KEY: mainCollection(svc).apiKey, DATASET_SYNC_MEDIA_CHECK: undefined });

/** A real ffprobe behind a script that logs each call: how many files a sync probed. */
async function loggingProber(name = 'ffprobe'): Promise<{ bin: string; calls: () => Promise<number> }> {
  const bin = path.join(work, `${name}-logged.sh`);
  const log = path.join(work, `${name}-calls.log`);
  await fs.writeFile(bin, `#!/bin/sh\necho "$*" >> '${log}'\nexec ffprobe "$@"\n`, { mode: 0o755 });
  return {
    bin,
    // Probes only: `-version` is the stage asking whether a prober starts at all (Prober.ready).
    calls: async () => (await fs.readFile(log, 'utf8').catch(() => '')).split('\n').filter((l) => l !== '' && l !== '-version').length,
  };
}

type Listed = { width: number; height: number; fps: number; duration: number; codec: string };

type Listing = Map<string, { setId: number; slot: number; media: Listed }>;
type SetJson = { id: number; files: Array<{ filename: string; slot_index: number; media: Listed }> };

function addSet(out: Listing, set: SetJson): void {
  for (const f of set.files) out.set(`sets/${set.id}/${f.filename}`, { setId: set.id, slot: f.slot_index, media: f.media });
}

/** The dataset's files with their listing's `media` (set.json keeps the listing's documented fields). */
async function listedFiles(dest: string): Promise<Listing> {
  const out: Listing = new Map();
  for (const id of await fs.readdir(path.join(dest, 'sets'))) addSet(out, JSON.parse(await fs.readFile(path.join(dest, 'sets', id, 'set.json'), 'utf8')) as SetJson);
  return out;
}

/**
 * media.csv's rows as they must be for this demo's faults (service/media-faults): the listing's
 * values, except where the fault makes the file disagree with it; `realSize` reads the frame
 * size of the `listing_lies` file.
 */
function expectedRows(files: Listing, realSize: (rel: string) => { width: number; height: number }): string[][] {
  const expected: string[][] = [];
  for (const [rel, f] of [...files].sort(([, a], [, b]) => a.setId - b.setId || a.slot - b.slot)) {
    const fault = faults.find((x) => x.set_id === f.setId && x.slot_index === f.slot)?.kind;
    const m = f.media;
    if (fault === 'too_small') expected.push([rel, ...cells(m), 'min_width;min_height', 'ok']);
    else if (fault === 'too_short') expected.push([rel, ...cells(m), 'min_duration', 'ok']);
    else if (fault === 'wrong_format') expected.push([rel, ...cells(m), 'format', 'ok']);
    else if (fault === 'listing_lies') {
      expect([m.width, m.height]).toEqual([1920, 1080]);
      expected.push([rel, ...cells({ ...m, ...realSize(rel) }), 'ok', 'width;height']);
    } else if (fault === 'wrong_codec') expected.push([rel, ...cells({ ...m, codec: m.codec === 'hevc' ? 'h264' : 'hevc' }), 'ok', 'codec']);
    else expected.push([rel, ...cells(m), 'ok', 'ok']);
  }
  return expected;
}

function ffprobeSize(file: string): { width: number; height: number } {
  const r = spawnSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'json', file], { encoding: 'utf8' });
  const s = (JSON.parse(r.stdout) as { streams: Array<{ width: number; height: number }> }).streams[0]!;
  return { width: s.width, height: s.height };
}

/** media.csv's rows: no cell of this demo holds a comma or a quote; a cell holding ';' is quoted (RFC 4180, as csv-stringify writes it). */
function parse(text: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split(',').map((c) => c.replace(/^"(.*)"$/, '$1')));
}

const cells = (m: Listed) => [m.width, m.height, m.fps, m.duration, m.codec].map(String);

describe('media check', () => {
  it.skipIf(!hasFfprobe)(`probes every verified file once, writes media.csv and counts mediaProblems (${hasFfprobe ? 'ffprobe present' : NO_FFPROBE})`, { timeout: 600_000 }, async () => {
    expect(faults.map((f) => f.kind).sort()).toEqual(['listing_lies', 'too_short', 'too_small', 'wrong_codec', 'wrong_format']);
    const prober = await loggingProber();
    const dest = path.join(work, 'ds');
    const env = { ...withKey(), DATASET_SYNC_FFPROBE: prober.bin };
    const r = await runCli(syncArgs(dest, '--json'), { env, timeoutMs: 240_000 }); // a kill guard for a loaded machine, not a timing check
    expect(r.code).toBe(0);
    const events = parseNdjson(r.stdout);
    const summary = events.at(-1)!;
    if (summary.type !== 'summary') throw new Error('no summary');
    expect(summary.summary.mediaProblems).toBe(5);
    expect(summary.summary.mediaUnprobed).toBe(0);
    expect(events.filter((e) => e.type === 'warning')).toEqual([]);

    const files = await listedFiles(dest);
    expect(files.size).toBe(12);
    const expected = expectedRows(files, (rel) => ffprobeSize(path.join(dest, rel)));
    const csv = parse(await fs.readFile(path.join(dest, 'media.csv'), 'utf8')) as string[][];
    expect(csv[0]).toEqual(['path', 'width', 'height', 'fps', 'duration', 'codec', 'rules', 'listing']);
    expect(csv.slice(1)).toEqual(expected);

    // One `media` event per probed file, the problem in plain words.
    const media = events.filter((e) => e.type === 'media');
    expect(media).toHaveLength(12);
    const small = faults.find((f) => f.kind === 'too_small')!;
    const smallEvent = media.find((e) => e.type === 'media' && e.setId === small.set_id && e.rules !== 'ok');
    expect(smallEvent).toMatchObject({ rules: 'min_width;min_height', problems: ["Width 160 px is below the collection's minimum 320 px", "Height 120 px is below the collection's minimum 240 px"] });
    expect(await prober.calls()).toBe(12);

    // A no-op sync probes nothing again; the human summary says how many files have a problem.
    const again = await runCli(syncArgs(dest), { env, timeoutMs: 240_000 });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('Media check: 5 files not as the collection');
    expect(await prober.calls()).toBe(12);
    expect(parse(await fs.readFile(path.join(dest, 'media.csv'), 'utf8'))).toEqual(csv);
  });

  it.skipIf(!hasFfprobe)(`says it checks the media while the last probes run, not "writing the manifest" (${hasFfprobe ? 'ffprobe present' : NO_FFPROBE})`, { timeout: 600_000 }, async () => {
    // A prober slower than the downloads (each call waits 0.3 s first): the end of the sync waits for it.
    const bin = path.join(work, 'ffprobe-slow.sh');
    await fs.writeFile(bin, `#!/bin/sh\nsleep 0.3\nexec ffprobe "$@"\n`, { mode: 0o755 });
    const dest = path.join(work, 'ds-slow-probe');
    const r = await runCli(syncArgs(dest, '--json'), { env: { ...withKey(), DATASET_SYNC_FFPROBE: bin }, timeoutMs: 240_000 });
    expect(r.code).toBe(0);
    const events = parseNdjson(r.stdout);
    const lastVerified = events.findLastIndex((e) => e.type === 'file' && e.state === 'verified');
    const progress = events.map((e, i) => ({ e, i })).filter((x): x is { e: Extract<SyncEvent, { type: 'progress' }>; i: number } => x.e.type === 'progress');
    const checking = progress.filter((p) => p.e.phase === 'checking_media');
    expect(checking.length).toBeGreaterThan(0);
    for (const { e } of checking) {
      expect(e.phases).toEqual(['checking_media']);
      expect(e.mediaLeft).toBeGreaterThan(0);
      expect(e.etaSeconds).toBeNull(); // no "about 0 s left" while probes run
    }
    // After the last transfer, before the index is written.
    expect(checking[0]!.i).toBeGreaterThan(lastVerified);
    const writing = progress.findIndex((p) => p.e.phase === 'writing_manifest');
    expect(progress.findIndex((p) => p.e.phase === 'checking_media')).toBeLessThan(writing);
    // The CLI's human line says it in words, with the files left.
    expect(phaseText(checking[0]!.e)).toMatch(/^checking the media \(\d+ files? left\)$/);
  });

  it('without a prober every file is unprobed, one warning says so, and the sync exits 0', { timeout: 600_000 }, async () => {
    const dest = path.join(work, 'ds-noprobe');
    // A configured prober that does not exist stands for a machine without one (the packaged
    // static ffprobe is an optional dependency, so an empty PATH alone would not do).
    const r = await runCli(syncArgs(dest, '--json'), { env: { ...withKey(), DATASET_SYNC_FFPROBE: path.join(work, 'no-such-ffprobe') }, timeoutMs: 240_000 });
    expect(r.code).toBe(0);
    const events = parseNdjson(r.stdout);
    const warnings = events.filter((e) => e.type === 'warning');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ message: expect.stringContaining('ffprobe could not run') });
    const summary = events.at(-1)!;
    if (summary.type !== 'summary') throw new Error('no summary');
    expect(summary.summary.filesDownloaded).toBe(12);
    expect(summary.summary.mediaProblems).toBe(12);
    expect(summary.summary.mediaUnprobed).toBe(12); // said as "not checked", never as broken rules
    const csv = parse(await fs.readFile(path.join(dest, 'media.csv'), 'utf8')) as string[][];
    expect(csv).toHaveLength(13);
    for (const row of csv.slice(1)) expect(row.slice(1)).toEqual(['', '', '', '', '', 'unprobed', '']);
  });

  it.skipIf(!hasFfprobe)(`a check put off (DATASET_SYNC_MEDIA_CHECK=off, or no prober) is made by the next sync that has one, once per file (${hasFfprobe ? 'ffprobe present' : NO_FFPROBE})`, { timeout: 600_000 }, async () => {
    // What the README tells a user with many small clips: get the files first, check them later.
    const prober = await loggingProber('ffprobe-deferred');
    const dest = path.join(work, 'ds-deferred');
    const first = await runCli(syncArgs(dest, '--json'), { env: { ...withKey(), DATASET_SYNC_FFPROBE: prober.bin, DATASET_SYNC_MEDIA_CHECK: 'off' }, timeoutMs: 240_000 });
    expect(first.code).toBe(0);
    expect(await prober.calls()).toBe(0);
    const unchecked = parse(await fs.readFile(path.join(dest, 'media.csv'), 'utf8'));
    expect(unchecked).toHaveLength(13);
    for (const row of unchecked.slice(1)) expect(row.slice(1)).toEqual(['', '', '', '', '', 'unprobed', '']);

    // Without a prober the files stay unprobed; once that is recorded, such a sync leaves the dataset files alone.
    const noProber = { ...withKey(), DATASET_SYNC_FFPROBE: path.join(work, 'no-such-ffprobe') };
    expect((await runCli(syncArgs(dest), { env: noProber, timeoutMs: 240_000 })).code).toBe(0);
    expect(parse(await fs.readFile(path.join(dest, 'media.csv'), 'utf8'))).toEqual(unchecked);
    const manifestBefore = await fs.stat(path.join(dest, 'manifest.csv'));
    expect((await runCli(syncArgs(dest), { env: noProber, timeoutMs: 240_000 })).code).toBe(0);
    expect((await fs.stat(path.join(dest, 'manifest.csv'))).mtimeMs).toBe(manifestBefore.mtimeMs);

    const later = await runCli(syncArgs(dest, '--json'), { env: { ...withKey(), DATASET_SYNC_FFPROBE: prober.bin }, timeoutMs: 240_000 });
    expect(later.code).toBe(0);
    const summary = parseNdjson(later.stdout).at(-1)!;
    if (summary.type !== 'summary') throw new Error('no summary');
    expect(summary.summary.filesDownloaded).toBe(0);
    expect(summary.summary.mediaProblems).toBe(5);
    expect(summary.summary.mediaUnprobed).toBe(0);
    expect(await prober.calls()).toBe(12);
    const files = await listedFiles(dest);
    expect(parse(await fs.readFile(path.join(dest, 'media.csv'), 'utf8')).slice(1)).toEqual(expectedRows(files, (rel) => ffprobeSize(path.join(dest, rel))));

    // And a sync after that probes nothing again.
    expect((await runCli(syncArgs(dest), { env: { ...withKey(), DATASET_SYNC_FFPROBE: prober.bin }, timeoutMs: 240_000 })).code).toBe(0);
    expect(await prober.calls()).toBe(12);
  });
});

// The same check into a real Ceph RGW bucket: the verified bytes staged on this machine are
// probed (s3/upload.ts keeps them past the commit until the probe ended), so the bucket's
// media.csv names the same five faulty files as a folder's, nothing staged is left behind, and
// a no-op probes nothing.
describe.skipIf(CEPH_MISSING !== null || !hasFfprobe)(needsCeph(`media check into a bucket (${hasFfprobe ? 'ffprobe present' : NO_FFPROBE})`), () => {
  const BUCKET = 'media-check';
  const ctx = {} as { rgw: CephRgw; admin: S3Client };
  beforeAll(async () => {
    ctx.rgw = await startCephRgw();
    ctx.admin = adminClient(ctx.rgw);
    await ctx.admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
  }, 180_000);
  afterAll(async () => {
    ctx.admin?.destroy();
    await ctx.rgw?.stop();
  }, 60_000);

  async function objectText(key: string): Promise<string> {
    const res = await ctx.admin.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return res.Body!.transformToString('utf8');
  }

  it('probes the staged bytes of every verified file once; media.csv in the bucket names the five faulty files', { timeout: 600_000 }, async () => {
    const prober = await loggingProber('ffprobe-bucket');
    const prefix = 'probed/faces';
    const stateHome = path.join(work, 'state-bucket');
    const env = {
      ...withKey(),
      DATASET_SYNC_FFPROBE: prober.bin,
      AWS_ACCESS_KEY_ID: ctx.rgw.accessKeyId,
      AWS_SECRET_ACCESS_KEY: ctx.rgw.secretAccessKey,
      AWS_REGION: 'us-east-1',
      XDG_STATE_HOME: stateHome,
    };
    const args = syncArgs(`s3://${BUCKET}/${prefix}`, '--s3-endpoint', ctx.rgw.endpoint, '--json');
    const r = await runCli(args, { env, timeoutMs: 240_000 }); // a kill guard for a loaded machine, not a timing check
    expect(r.code, r.stderr).toBe(0);
    const events = parseNdjson(r.stdout);
    const summary = events.at(-1)!;
    if (summary.type !== 'summary') throw new Error('no summary');
    expect(summary.summary.filesDownloaded).toBe(12);
    expect(summary.summary.mediaProblems).toBe(5);
    expect(summary.summary.mediaUnprobed).toBe(0);
    expect(events.filter((e) => e.type === 'warning')).toEqual([]);
    expect(events.filter((e) => e.type === 'media')).toHaveLength(12);
    expect(await prober.calls()).toBe(12);

    const files: Listing = new Map();
    for (const key of (await keysUnder(ctx.admin, BUCKET, `${prefix}/sets/`)).filter((k) => k.endsWith('/set.json'))) addSet(files, JSON.parse(await objectText(key)) as SetJson);
    expect(files.size).toBe(12);
    const copies = path.join(work, 'bucket-copies');
    await fs.mkdir(copies, { recursive: true });
    // The listing_lies object itself, read back with the tests' own client and probed here.
    const lies = [...files].find(([, f]) => faults.some((x) => x.kind === 'listing_lies' && x.set_id === f.setId && x.slot_index === f.slot))![0];
    const res = await ctx.admin.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${prefix}/${lies}` }));
    await fs.writeFile(path.join(copies, path.basename(lies)), await res.Body!.transformToByteArray());
    const rows = expectedRows(files, (rel) => ffprobeSize(path.join(copies, path.basename(rel))));
    const csv = parse(await objectText(`${prefix}/media.csv`));
    expect(csv[0]).toEqual(['path', 'width', 'height', 'fps', 'duration', 'codec', 'rules', 'listing']);
    expect(csv.slice(1)).toEqual(rows);

    // The bytes kept for the probes are gone (stateDir/uploads/verified), and nothing else is staged.
    const [bucketState] = await fs.readdir(path.join(stateHome, 'dataset-sync', 'buckets'));
    const uploads = path.join(stateHome, 'dataset-sync', 'buckets', bucketState!, 'uploads');
    expect(await fs.readdir(path.join(uploads, 'verified')).catch(() => [])).toEqual([]);
    expect((await fs.readdir(uploads).catch(() => [] as string[])).filter((n) => n !== 'verified')).toEqual([]);

    // A no-op sync probes nothing and leaves media.csv as it was.
    const again = await runCli(args, { env, timeoutMs: 240_000 });
    expect(again.code, again.stderr).toBe(0);
    const last = parseNdjson(again.stdout).at(-1)!;
    if (last.type !== 'summary') throw new Error('no summary');
    expect(last.summary.filesDownloaded).toBe(0);
    expect(last.summary.mediaProblems).toBe(5);
    expect(await prober.calls()).toBe(12);
    expect(parse(await objectText(`${prefix}/media.csv`))).toEqual(csv);
  });
});

// The media check (docs/contracts.md §1, media.csv; issue 69 point 4) as users run it: the CLI
// syncs the demo's real videos with the service's media faults on. Every downloaded file's
// container headers are read in-process as its bytes are hashed: media.csv names the five faulty
// files, no ffprobe is started (a wrapper that logs its calls stands in the configured prober's
// place), and a no-op sync checks nothing again. A check put off (DATASET_SYNC_MEDIA_CHECK=off) is
// made by the next sync from the files at the destination, counted by the progress bar; the deep
// check (DATASET_SYNC_MEDIA_CHECK=deep) asks the real ffprobe once per file and agrees. Where
// ffprobe is there, it is also the independent reading media.csv's rows are compared with.
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
  it('reads every downloaded file in-process: media.csv names the five faulty files, no ffprobe starts, a no-op checks nothing', { timeout: 600_000 }, async () => {
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
    expect(await prober.calls()).toBe(0);
    // Checked as it was verified: no stage work is left for the end of the sync.
    expect(events.filter((e) => e.type === 'progress' && e.phase === 'checking_media')).toEqual([]);

    const files = await listedFiles(dest);
    expect(files.size).toBe(12);
    const csv = parse(await fs.readFile(path.join(dest, 'media.csv'), 'utf8')) as string[][];
    expect(csv[0]).toEqual(['path', 'width', 'height', 'fps', 'duration', 'codec', 'rules', 'listing']);
    if (hasFfprobe) expect(csv.slice(1)).toEqual(expectedRows(files, (rel) => ffprobeSize(path.join(dest, rel))));
    else expect(csv.slice(1).map((row) => row.slice(6))).toEqual(expectedRows(files, () => ({ width: 0, height: 0 })).map((row) => row.slice(6)));

    // One `media` event per file checked, the problem in plain words.
    const media = events.filter((e) => e.type === 'media');
    expect(media).toHaveLength(12);
    const small = faults.find((f) => f.kind === 'too_small')!;
    const smallEvent = media.find((e) => e.type === 'media' && e.setId === small.set_id && e.rules !== 'ok');
    expect(smallEvent).toMatchObject({ rules: 'min_width;min_height', problems: ["Width 160 px is below the collection's minimum 320 px", "Height 120 px is below the collection's minimum 240 px"] });

    // A no-op sync checks nothing again; the human summary says how many files have a problem.
    const again = await runCli(syncArgs(dest, '--json'), { env, timeoutMs: 240_000 });
    expect(again.code).toBe(0);
    const againEvents = parseNdjson(again.stdout);
    expect(againEvents.filter((e) => e.type === 'media' && e.probed)).toEqual([]);
    const human = await runCli(syncArgs(dest), { env, timeoutMs: 240_000 });
    expect(human.stderr).toContain('Media check: 5 files not as the collection');
    expect(parse(await fs.readFile(path.join(dest, 'media.csv'), 'utf8'))).toEqual(csv);
    expect(await prober.calls()).toBe(0);
  });

  it.skipIf(!hasFfprobe)(`the deep check (DATASET_SYNC_MEDIA_CHECK=deep) asks ffprobe once per file and agrees with the headers (${hasFfprobe ? 'ffprobe present' : NO_FFPROBE})`, { timeout: 600_000 }, async () => {
    const prober = await loggingProber('ffprobe-deep');
    const dest = path.join(work, 'ds-deep');
    const r = await runCli(syncArgs(dest, '--json'), { env: { ...withKey(), DATASET_SYNC_FFPROBE: prober.bin, DATASET_SYNC_MEDIA_CHECK: 'deep' }, timeoutMs: 240_000 });
    expect(r.code).toBe(0);
    const summary = parseNdjson(r.stdout).at(-1)!;
    if (summary.type !== 'summary') throw new Error('no summary');
    expect(summary.summary.mediaProblems).toBe(5);
    expect(await prober.calls()).toBe(12);
    const files = await listedFiles(dest);
    expect(parse(await fs.readFile(path.join(dest, 'media.csv'), 'utf8')).slice(1)).toEqual(expectedRows(files, (rel) => ffprobeSize(path.join(dest, rel))));
  });

  it('a check put off (DATASET_SYNC_MEDIA_CHECK=off) is made by the next sync from the files, once; the bar ends only after it', { timeout: 600_000 }, async () => {
    const prober = await loggingProber('ffprobe-deferred');
    const dest = path.join(work, 'ds-deferred');
    const env = { ...withKey(), DATASET_SYNC_FFPROBE: prober.bin };
    const first = await runCli(syncArgs(dest, '--json'), { env: { ...env, DATASET_SYNC_MEDIA_CHECK: 'off' }, timeoutMs: 240_000 });
    expect(first.code).toBe(0);
    const firstSummary = parseNdjson(first.stdout).at(-1)!;
    if (firstSummary.type !== 'summary') throw new Error('no summary');
    expect(firstSummary.summary.mediaUnprobed).toBe(12); // said as "not checked", never as broken rules
    const unchecked = parse(await fs.readFile(path.join(dest, 'media.csv'), 'utf8'));
    expect(unchecked).toHaveLength(13);
    for (const row of unchecked.slice(1)) expect(row.slice(1)).toEqual(['', '', '', '', '', 'unprobed', '']);

    const later = await runCli(syncArgs(dest, '--json'), { env, timeoutMs: 240_000 });
    expect(later.code).toBe(0);
    const events = parseNdjson(later.stdout);
    const summary = events.at(-1)!;
    if (summary.type !== 'summary') throw new Error('no summary');
    expect(summary.summary.filesDownloaded).toBe(0);
    expect(summary.summary.mediaProblems).toBe(5);
    expect(summary.summary.mediaUnprobed).toBe(0);
    expect(events.filter((e) => e.type === 'media' && e.probed)).toHaveLength(12);
    expect(await prober.calls()).toBe(0);
    // Nothing to download: the check is the sync's work, and the bar says so. It reaches its end
    // only once the last file is checked; while checks are left, the words say how many.
    const lastChecked = events.findLastIndex((e) => e.type === 'media');
    events.forEach((e, i) => {
      if (e.type === 'progress' && i < lastChecked) expect(e.fraction).toBeLessThan(1);
      if (e.type === 'progress' && e.phase === 'checking_media') expect(phaseText(e)).toMatch(/^checking the media \(\d+ files? left\)$/);
    });
    const progress = events.filter((e): e is Extract<SyncEvent, { type: 'progress' }> => e.type === 'progress');
    expect(progress.at(-1)!.fraction).toBe(1);
    const files = await listedFiles(dest);
    if (hasFfprobe) expect(parse(await fs.readFile(path.join(dest, 'media.csv'), 'utf8')).slice(1)).toEqual(expectedRows(files, (rel) => ffprobeSize(path.join(dest, rel))));

    // And a sync after that checks nothing again.
    const after = await runCli(syncArgs(dest, '--json'), { env, timeoutMs: 240_000 });
    expect(after.code).toBe(0);
    expect(parseNdjson(after.stdout).filter((e) => e.type === 'media' && e.probed)).toEqual([]);
  });
});

// The same check into a real Ceph RGW bucket: each object's headers are read from the bytes as
// they are hashed on their way up, so nothing is staged or kept on this machine for the check
// (the uploads folder is empty after the sync), the bucket's media.csv names the same five
// faulty files as a folder's, and a no-op checks nothing. A check put off is made from the
// bucket's objects (ranged reads of their headers), with no local copy.
describe.skipIf(CEPH_MISSING !== null)(needsCeph('media check into a bucket'), () => {
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

  function bucketEnv(stateHome: string) {
    return {
      ...withKey(),
      AWS_ACCESS_KEY_ID: ctx.rgw.accessKeyId,
      AWS_SECRET_ACCESS_KEY: ctx.rgw.secretAccessKey,
      AWS_REGION: 'us-east-1',
      XDG_STATE_HOME: stateHome,
    };
  }

  /** The expected rows, the listing_lies object itself read back with the tests' own client and probed here by ffprobe. */
  async function expectedBucketRows(prefix: string): Promise<string[][]> {
    const files: Listing = new Map();
    for (const key of (await keysUnder(ctx.admin, BUCKET, `${prefix}/sets/`)).filter((k) => k.endsWith('/set.json'))) addSet(files, JSON.parse(await objectText(key)) as SetJson);
    expect(files.size).toBe(12);
    const copies = path.join(work, `bucket-copies-${prefix.replace(/\W/g, '-')}`);
    await fs.mkdir(copies, { recursive: true });
    const lies = [...files].find(([, f]) => faults.some((x) => x.kind === 'listing_lies' && x.set_id === f.setId && x.slot_index === f.slot))![0];
    const res = await ctx.admin.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${prefix}/${lies}` }));
    await fs.writeFile(path.join(copies, path.basename(lies)), await res.Body!.transformToByteArray());
    return expectedRows(files, (rel) => (hasFfprobe ? ffprobeSize(path.join(copies, path.basename(rel))) : { width: 0, height: 0 }));
  }

  const rowsToCompare = (rows: string[][]) => (hasFfprobe ? rows : rows.map((r) => [r[0]!, ...r.slice(6)]));

  it('checks every object from its upload stream: nothing is kept on this machine; media.csv in the bucket names the five faulty files', { timeout: 600_000 }, async () => {
    const prefix = 'probed/faces';
    const stateHome = path.join(work, 'state-bucket');
    const env = bucketEnv(stateHome);
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

    const csv = parse(await objectText(`${prefix}/media.csv`));
    expect(csv[0]).toEqual(['path', 'width', 'height', 'fps', 'duration', 'codec', 'rules', 'listing']);
    expect(rowsToCompare(csv.slice(1))).toEqual(rowsToCompare(await expectedBucketRows(prefix)));

    // Nothing staged is left on this machine.
    const [bucketState] = await fs.readdir(path.join(stateHome, 'dataset-sync', 'buckets'));
    const uploads = path.join(stateHome, 'dataset-sync', 'buckets', bucketState!, 'uploads');
    expect(await fs.readdir(uploads).catch(() => [] as string[])).toEqual([]);

    // A no-op sync checks nothing and leaves media.csv as it was.
    const again = await runCli(args, { env, timeoutMs: 240_000 });
    expect(again.code, again.stderr).toBe(0);
    const againEvents = parseNdjson(again.stdout);
    const last = againEvents.at(-1)!;
    if (last.type !== 'summary') throw new Error('no summary');
    expect(last.summary.filesDownloaded).toBe(0);
    expect(last.summary.mediaProblems).toBe(5);
    expect(againEvents.filter((e) => e.type === 'media' && e.probed)).toEqual([]);
    expect(parse(await objectText(`${prefix}/media.csv`))).toEqual(csv);
  });

  it('a check put off is made from the objects in the bucket, with no local copy', { timeout: 600_000 }, async () => {
    const prefix = 'deferred/faces';
    const stateHome = path.join(work, 'state-bucket-deferred');
    const env = bucketEnv(stateHome);
    const args = syncArgs(`s3://${BUCKET}/${prefix}`, '--s3-endpoint', ctx.rgw.endpoint, '--json');
    expect((await runCli(args, { env: { ...env, DATASET_SYNC_MEDIA_CHECK: 'off' }, timeoutMs: 240_000 })).code).toBe(0);
    const later = await runCli(args, { env, timeoutMs: 240_000 });
    expect(later.code, later.stderr).toBe(0);
    const events = parseNdjson(later.stdout);
    const summary = events.at(-1)!;
    if (summary.type !== 'summary') throw new Error('no summary');
    expect(summary.summary.filesDownloaded).toBe(0);
    expect(summary.summary.mediaProblems).toBe(5);
    expect(summary.summary.mediaUnprobed).toBe(0);
    expect(events.filter((e) => e.type === 'media' && e.probed)).toHaveLength(12);
    expect(rowsToCompare(parse(await objectText(`${prefix}/media.csv`)).slice(1))).toEqual(rowsToCompare(await expectedBucketRows(prefix)));
  });
});

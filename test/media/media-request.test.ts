// The media URLs' request handler (app/media/media-request.ts) on a dataset really synced from
// the reference service (its real demo videos): Range answers, refusals of everything that is
// not a verified file of the chosen dataset, and thumbnails made by the system's ffmpeg.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { text as readText } from 'node:stream/consumers';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMediaHandler, mediaContentType, parseRange, type MediaResponse } from '../../src-main/app/media/media-request';
import { Thumbnailer, thumbPath, THUMB_CONCURRENCY } from '../../src-main/app/media/thumbnails';
import { listDatasetSets } from '../../src-main/app/media/local-sets';
import { sync, tempDir, useService } from '../engine/helpers';
import { toolPresent } from '../support/media-tools';

const ctx = useService({ sets: 4, slots: 2 });
let dest: string;
let rows: Awaited<ReturnType<typeof listDatasetSets>>['rows'];
const notices: string[] = [];
const thumbnails = new Thumbnailer({ onNotice: (m) => notices.push(m) });
let handle: ReturnType<typeof createMediaHandler>;

async function bytes(body: Readable | null): Promise<Buffer> {
  if (!body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

const ffmpegPresent = (): boolean => toolPresent('ffmpeg');

beforeAll(async () => {
  dest = path.join(await tempDir('dsync-media-'), 'dataset');
  const { summary } = await sync(ctx.svc, dest);
  expect(summary.exitCode).toBe(0);
  rows = (await listDatasetSets(dest, { page: 1, perPage: 200 })).rows;
  handle = createMediaHandler({ datasetFolder: (id) => (id === ctx.collectionId ? dest : null), thumbnails });
}, 120_000);

afterAll(async () => {
  if (dest) await fs.rm(path.dirname(dest), { recursive: true, force: true });
});

function firstFile(ext?: string) {
  for (const r of rows) for (const f of r.files) if (!ext || f.filename.endsWith(ext)) return { setId: r.id, file: f };
  throw new Error(`no verified ${ext ?? ''} file in the demo dataset`);
}

const url = (kind: string, setId: number | string, name: string, collection: number | string = ctx.collectionId) => `dataset-media://local/${kind}/${collection}/${setId}/${name}`;

describe('media request handler', () => {
  it('lists the synced sets with their verified files', () => {
    expect(rows.length).toBe(4);
    for (const r of rows) {
      expect(r.complete).toBe(true);
      expect(r.files.map((f) => f.slotIndex)).toEqual([1, 2]);
    }
  });

  it('answers the whole file (200), a range (206 with Content-Range), a suffix range, and 416 past the end', async () => {
    const { setId, file } = firstFile();
    const onDisk = await fs.readFile(path.join(dest, 'sets', String(setId), file.filename));
    const size = onDisk.length;

    const full = await handle({ url: url('video', setId, file.filename), headers: {} });
    expect(full.status).toBe(200);
    expect(full.headers['Content-Length']).toBe(String(size));
    expect(full.headers['Accept-Ranges']).toBe('bytes');
    expect(full.headers['Content-Type']).toBe(mediaContentType(file.filename));
    expect((await bytes(full.body)).equals(onDisk)).toBe(true);

    const part = await handle({ url: url('video', setId, file.filename), headers: { range: 'bytes=100-1099' } });
    expect(part.status).toBe(206);
    expect(part.headers['Content-Range']).toBe(`bytes 100-1099/${size}`);
    expect(part.headers['Content-Length']).toBe('1000');
    expect((await bytes(part.body)).equals(onDisk.subarray(100, 1100))).toBe(true);

    const open = await handle({ url: url('video', setId, file.filename), headers: { range: `bytes=${size - 10}-` } });
    expect(open.status).toBe(206);
    expect(open.headers['Content-Range']).toBe(`bytes ${size - 10}-${size - 1}/${size}`);
    expect((await bytes(open.body)).equals(onDisk.subarray(size - 10))).toBe(true);

    const suffix = await handle({ url: url('video', setId, file.filename), headers: { range: 'bytes=-20' } });
    expect(suffix.status).toBe(206);
    expect((await bytes(suffix.body)).equals(onDisk.subarray(size - 20))).toBe(true);

    const past = await handle({ url: url('video', setId, file.filename), headers: { range: `bytes=${size}-` } });
    expect(past.status).toBe(416);
    expect(past.headers['Content-Range']).toBe(`bytes */${size}`);

    const head = await handle({ url: url('video', setId, file.filename), method: 'HEAD', headers: {} });
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
  });

  it('parses ranges as RFC 9110 says', () => {
    expect(parseRange('bytes=0-0', 10)).toEqual({ start: 0, end: 0 });
    expect(parseRange('bytes=5-100', 10)).toEqual({ start: 5, end: 9 });
    expect(parseRange('bytes=-100', 10)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=10-', 10)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 10)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-1,4-5', 10)).toBeNull(); // several ranges: the whole file
    expect(parseRange('items=0-1', 10)).toBeNull();
    expect(parseRange('bytes=5-2', 10)).toBeNull();
  });

  it('gives the content type by extension', () => {
    expect(mediaContentType('a.MP4')).toBe('video/mp4');
    expect(mediaContentType('a.mov')).toBe('video/quicktime');
    expect(mediaContentType('a.webm')).toBe('video/webm');
    expect(mediaContentType('a.mkv')).toBe('video/x-matroska');
    expect(mediaContentType('a.bin')).toBe('application/octet-stream');
  });

  it('refuses everything that is not a verified file of the chosen dataset', async () => {
    const { setId, file } = firstFile();
    // Files that exist under DEST but are not verified media: the manifest, the state, set.json.
    await fs.writeFile(path.join(dest, 'sets', String(setId), 'notes.mp4'), 'not listed');
    const refused: Array<[string, string]> = [
      ['traversal', `dataset-media://local/video/${ctx.collectionId}/${setId}/..%2F..%2Fmanifest.csv`],
      ['traversal by dots', `dataset-media://local/video/${ctx.collectionId}/${setId}/%2E%2E`],
      ['raw traversal', `dataset-media://local/video/${ctx.collectionId}/${setId}/../../manifest.csv`],
      ['absolute path', `dataset-media://local/video/${ctx.collectionId}/${setId}/%2Fetc%2Fpasswd`],
      ['set.json', url('video', setId, 'set.json')],
      ['unlisted file', url('video', setId, 'notes.mp4')],
      ['file of another set', url('video', setId + 1000, file.filename)],
      ['another collection', url('video', setId, file.filename, ctx.collectionId + 1)],
      ['not a number', url('video', 'abc', file.filename)],
      ['unknown kind', url('raw', setId, file.filename)],
      ['extra path part', `dataset-media://local/video/${ctx.collectionId}/${setId}/x/${file.filename}`],
      ['bad escape', url('video', setId, '%E0%A4%A')],
    ];
    for (const [why, u] of refused) {
      const answer: MediaResponse = await handle({ url: u, headers: {} });
      expect(answer.status, why).toBe(404);
      expect(await readText(answer.body!), why).not.toContain('sha256');
    }
    const post = await handle({ url: url('video', setId, file.filename), method: 'POST', headers: {} });
    expect(post.status).toBe(405);
  });

  it('refuses a symlink put in place of a verified file, and a file whose size changed since verification', async () => {
    const a = rows[0]!;
    const b = rows[1]!;
    const victim = a.files[0]!.filename;
    const victimPath = path.join(dest, 'sets', String(a.id), victim);
    const saved = await fs.readFile(victimPath);
    try {
      await fs.rm(victimPath);
      await fs.symlink(path.join(dest, 'manifest.csv'), victimPath);
      expect((await handle({ url: url('video', a.id, victim), headers: {} })).status).toBe(404);
    } finally {
      await fs.rm(victimPath, { force: true });
      await fs.writeFile(victimPath, saved);
    }
    expect((await handle({ url: url('video', a.id, victim), headers: {} })).status).toBe(200);

    const grown = b.files[0]!.filename;
    const grownPath = path.join(dest, 'sets', String(b.id), grown);
    const original = await fs.readFile(grownPath);
    await fs.appendFile(grownPath, 'changed after verification');
    try {
      expect((await handle({ url: url('video', b.id, grown), headers: {} })).status).toBe(404);
    } finally {
      await fs.writeFile(grownPath, original);
    }
  });

  it('refuses a set folder replaced by a symlink to elsewhere', async () => {
    const r = rows[2]!;
    const setDir = path.join(dest, 'sets', String(r.id));
    const outside = path.join(path.dirname(dest), 'elsewhere');
    await fs.rename(setDir, outside);
    try {
      await fs.symlink(outside, setDir);
      expect((await handle({ url: url('video', r.id, r.files[0]!.filename), headers: {} })).status).toBe(404);
    } finally {
      await fs.rm(setDir, { force: true });
      await fs.rename(outside, setDir);
    }
  });
});

describe('thumbnails', () => {
  const present = ffmpegPresent();

  it.skipIf(!present)('makes a JPEG 160 px wide with ffmpeg, cached under the state folder by SHA-256 (skipped without ffmpeg)', async () => {
    const { setId, file } = firstFile();
    const answer = await handle({ url: url('thumb', setId, file.filename), headers: {} });
    expect(answer.status).toBe(200);
    expect(answer.headers['Content-Type']).toBe('image/jpeg');
    const jpeg = await bytes(answer.body);
    expect(jpeg.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(true);
    const cached = thumbPath(dest, file.sha256);
    expect(cached).toBe(path.join(dest, '.dataset-sync', 'thumbs', `${file.sha256}.jpg`));
    expect((await fs.readFile(cached)).equals(jpeg)).toBe(true);
    const probe = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=width', '-of', 'csv=p=0', cached], { encoding: 'utf8' });
    expect(Number(probe.trim())).toBe(160);
    // Served from the cache the second time (same bytes, the file is not rewritten).
    const stamp = (await fs.stat(cached)).mtimeMs;
    await bytes((await handle({ url: url('thumb', setId, file.filename), headers: {} })).body);
    expect((await fs.stat(cached)).mtimeMs).toBe(stamp);
    expect(notices).toEqual([]);
  });

  it.skipIf(!present)(`makes every file's thumbnail, at most ${THUMB_CONCURRENCY} ffmpeg at a time`, async () => {
    // A wrapper around the real ffmpeg notes how many run at once (one marker file per run).
    const dir = await tempDir('dsync-ffmpeg-');
    const wrapper = path.join(dir, 'ffmpeg');
    await fs.writeFile(
      wrapper,
      `#!/bin/sh\nmkdir -p "${dir}/running"; touch "${dir}/running/$$"; ls "${dir}/running" | wc -l >> "${dir}/counts"\nffmpeg "$@"; code=$?\nrm -f "${dir}/running/$$"; exit $code\n`,
      { mode: 0o755 },
    );
    const counted = createMediaHandler({ datasetFolder: () => dest, thumbnails: new Thumbnailer({ ffmpeg: async () => wrapper }) });
    await fs.rm(path.join(dest, '.dataset-sync', 'thumbs'), { recursive: true, force: true });
    const all = rows.flatMap((r) => r.files.map((f) => ({ setId: r.id, name: f.filename })));
    const answers = await Promise.all(all.map((f) => counted({ url: url('thumb', f.setId, f.name), headers: {} })));
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.headers['Content-Type']).toBe('image/jpeg');
      await bytes(a.body);
    }
    const counts = (await fs.readFile(path.join(dir, 'counts'), 'utf8')).trim().split('\n').map(Number);
    expect(counts.length).toBeGreaterThanOrEqual(all.length);
    expect(Math.max(...counts)).toBeLessThanOrEqual(THUMB_CONCURRENCY);
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('without ffmpeg: a placeholder image, and one plain-words notice however many are asked', async () => {
    const said: string[] = [];
    const none = createMediaHandler({ datasetFolder: () => dest, thumbnails: new Thumbnailer({ onNotice: (m) => said.push(m), ffmpeg: async () => null }) });
    const { setId, file } = firstFile();
    await fs.rm(thumbPath(dest, file.sha256), { force: true });
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => none({ url: url('thumb', setId, file.filename), headers: {} })));
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.headers['Content-Type']).toBe('image/svg+xml');
      expect(await readText(a.body!)).toContain('<svg');
    }
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/need ffmpeg, which was not found/);
  });
});

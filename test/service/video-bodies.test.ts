// Real video bodies of a requested size (ServiceOptions.videoBodies, src-service/video-bodies.ts):
// the benchmarks time the media check on them, so they must be what they claim. Every served
// body has exactly the size asked and the listed SHA-256, differs from every other, and is an
// H.264 MP4 that ffprobe reads with the listing's values, its moov after its mdat (as cameras
// write them) and the stamp in a trailing `free` box; without ffmpeg, a demo clip padded the
// same way. Checks that need ffmpeg or ffprobe skip, saying why, when they are absent.

import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceService } from '../../src-service/index';
import { sharedClipLibrary } from '../../src-service/clips';
import { clipHashState, stampBox, videoClipFor, writeVideoBody, VIDEO_BODY_MIN_SIZE, VIDEO_STAMP_MIN } from '../../src-service/video-bodies';
import { getBytes, sha256, startTestService, walkSets, type TestService } from './support';
import { ffprobeVideo, toolPresent } from '../support/media-tools';

const hasFfmpeg = toolPresent('ffmpeg');
const hasFfprobe = toolPresent('ffprobe');
const NO_TOOLS = 'ffmpeg and ffprobe are not both installed (apt-get install ffmpeg)';
const NO_FFPROBE = 'ffprobe is not installed (apt-get install ffmpeg)';
const SIZE = 256 * 1024;

/** The top-level boxes of an MP4, in order: type, offset and size. */
function topLevelBoxes(data: Buffer): Array<{ type: string; at: number; size: number }> {
  const boxes = [];
  for (let at = 0; at < data.length; ) {
    let size = data.readUInt32BE(at);
    const type = data.toString('latin1', at + 4, at + 8);
    if (size === 1) size = Number(data.readBigUInt64BE(at + 8));
    if (size < 8) throw new Error(`box ${type} at ${at}: size ${size}`);
    boxes.push({ type, at, size });
    at += size;
  }
  return boxes;
}

describe('the stamp box', () => {
  it('covers the rest of the body exactly, with a 64-bit size past 4 GiB', () => {
    const small = stampBox(1000, 1000 + 5000, 'file 7');
    expect(small.head.readUInt32BE(0)).toBe(5000);
    expect(small.head.toString('latin1', 4, 8)).toBe('free');
    expect(small.head.toString('latin1', 8, 14)).toBe('file 7');
    expect(small.head.length + small.padding).toBe(5000);
    const length = 2 ** 32 + 10;
    const wide = stampBox(1000, 1000 + length, 'file 8');
    expect(wide.head.readUInt32BE(0)).toBe(1);
    expect(wide.head.readBigUInt64BE(8)).toBe(BigInt(length));
    expect(wide.head.length + wide.padding).toBe(length);
    expect(() => stampBox(1000, 1000 + VIDEO_STAMP_MIN - 1, 'x')).toThrow(RangeError);
  });

  it('refuses what cannot be a real video body', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ds-video-small-'));
    try {
      await expect(videoClipFor(dir, VIDEO_BODY_MIN_SIZE - 1, null)).rejects.toThrow(RangeError);
      await expect(startReferenceService({ dataDir: dir, lazy: true, fileSize: 1024, videoBodies: true })).rejects.toThrow(/videoBodies/);
      await expect(startReferenceService({ dataDir: dir, videoBodies: true })).rejects.toThrow(/videoBodies/);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!hasFfmpeg || !hasFfprobe)(`served video bodies (${hasFfmpeg && hasFfprobe ? 'ffmpeg and ffprobe present' : NO_TOOLS})`, () => {
  let svc: TestService;
  let work: string;

  beforeAll(async () => {
    svc = await startTestService({ sets: 3, fileSize: SIZE, videoBodies: true });
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'ds-video-bodies-'));
  }, 120_000);
  afterAll(async () => {
    await svc?.stop();
    if (work) await fs.rm(work, { recursive: true, force: true });
  });

  it('says they were made by ffmpeg', () => {
    expect(svc.videoBodies).toMatchObject({ source: 'ffmpeg', fileSize: SIZE, media: { codec: 'h264' } });
    expect(svc.videoBodies!.clipBytes).toBeLessThanOrEqual(SIZE - VIDEO_STAMP_MIN);
    // Mostly video, not padding: the encoder was asked for about the size.
    expect(svc.videoBodies!.clipBytes).toBeGreaterThan(SIZE * 0.6);
  });

  it('serves every file at the size asked, with the listed SHA-256, each its own, as an H.264 MP4 with moov at the end', { timeout: 120_000 }, async () => {
    const sets = await walkSets(svc.deliveryBaseUrl, svc.mainKey, svc.mainCollection);
    const files = sets.flatMap((s) => s.files);
    expect(files.length).toBe(12);
    const hashes = new Set<string>();
    for (const f of files) {
      const res = await getBytes(f.url, svc.mainKey);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('video/mp4');
      expect(f.size_bytes).toBe(SIZE);
      expect(res.body.length).toBe(SIZE);
      expect(sha256(res.body)).toBe(f.sha256);
      hashes.add(f.sha256);
      const boxes = topLevelBoxes(res.body);
      const types = boxes.map((b) => b.type);
      expect(types.indexOf('moov')).toBeGreaterThan(types.indexOf('mdat'));
      const last = boxes.at(-1)!;
      expect(last.type).toBe('free');
      expect(res.body.toString('latin1', last.at + 8, last.at + 40)).toContain(`video body ${f.id} `);
      expect(f.media).toEqual(svc.videoBodies!.media);
    }
    expect(hashes.size).toBe(files.length);
    // ffprobe reads two of them (the first and the last) as the listing says.
    for (const f of [files[0]!, files.at(-1)!]) {
      const file = path.join(work, f.filename);
      await fs.writeFile(file, (await getBytes(f.url, svc.mainKey)).body);
      const probed = await ffprobeVideo(file);
      expect(probed.formatName).toContain('mp4');
      expect(probed).toMatchObject({ codec: 'h264', width: f.media.width, height: f.media.height, fps: f.media.fps });
      expect(Math.abs((probed.duration ?? NaN) - f.media.duration)).toBeLessThanOrEqual(0.1);
    }
  });

  it('keeps the other collections synthetic', async () => {
    const other = svc.clients[0]!.collections[1];
    expect(other).toBeDefined();
    const sets = await walkSets(svc.deliveryBaseUrl, svc.mainKey, other!);
    const f = sets.flatMap((s) => s.files)[0];
    if (!f) return;
    const res = await getBytes(f.url, svc.mainKey);
    expect(sha256(res.body)).toBe(f.sha256);
    expect(res.body.toString('latin1', 4, 8)).not.toBe('ftyp');
  });
});

describe.skipIf(!hasFfprobe)(`without ffmpeg (${hasFfprobe ? 'ffprobe present' : NO_FFPROBE})`, () => {
  it('pads the smallest clean demo MP4 to the size, and it still probes as that clip', { timeout: 60_000 }, async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ds-video-padded-'));
    const pathBefore = process.env.PATH;
    try {
      // No ffmpeg on an empty PATH: the spawn fails and the clip falls back.
      process.env.PATH = path.join(dir, 'no-tools');
      const clip = await videoClipFor(dir, SIZE, sharedClipLibrary());
      process.env.PATH = pathBefore;
      expect(clip.source).toBe('padded demo clip');
      const body = path.join(dir, 'body.mp4');
      const digest = await writeVideoBody(body, clip, await clipHashState(clip), SIZE, 'padded body 1');
      const bytes = await fs.readFile(body);
      expect(bytes.length).toBe(SIZE);
      expect(sha256(bytes)).toBe(digest);
      expect(topLevelBoxes(bytes).at(-1)!.type).toBe('free');
      expect(await ffprobeVideo(body)).toMatchObject({ codec: clip.media.codec, width: clip.media.width, height: clip.media.height });
    } finally {
      process.env.PATH = pathBefore;
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

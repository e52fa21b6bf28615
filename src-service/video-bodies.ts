// Real video bodies of a requested size (ServiceOptions.videoBodies), for benchmarks whose
// workload is videos: the media check must read what users sync, not random bytes. One clip per
// size is made once and cached in the data dir: an H.264 MP4 encoded by ffmpeg at about that size,
// with its moov atom at the END as cameras write them (ffmpeg's default without +faststart). Each
// served file is that clip plus one trailing `free` box that holds the file's stamp and pads the
// body to the exact size, so every file has its own SHA-256, the size is the one asked for, and
// the file still plays and probes as the clip (a box after moov changes no chunk offset).
// Without ffmpeg the clip is the smallest clean demo MP4 (src-service/media), padded the same way;
// `source` says which, and the benchmark report prints it.

import { spawn } from 'node:child_process';
import { createHash, randomBytes, type Hash } from 'node:crypto';
import { createReadStream, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { ClipLibrary, MediaProbe } from './clips';

/** Smallest body a video can be: x264 cannot code 2 s of 320x240 in fewer bytes (and the demo clips start at 4 KB). */
export const VIDEO_BODY_MIN_SIZE = 48 * 1024;
/** A `free` box's header with a 64-bit size (the case past 4 GiB) plus the stamp's text. */
const STAMP_BOX_MAX_HEADER = 16;
const STAMP_TEXT = 48;
/** Room the clip leaves for the stamp box at least. */
export const VIDEO_STAMP_MIN = STAMP_BOX_MAX_HEADER + STAMP_TEXT;
const CACHE_FORMAT = 'v1';
const FPS = 30;
/** Encoded once and looped by stream copy: every loop starts on a key frame, so the clip is valid H.264 throughout. */
const SEGMENT_S = 2;
/** Encoding attempts before giving up on ffmpeg (each corrects the bitrate by the size the last one gave). */
const ATTEMPTS = 5;
/** How close under the size the clip should come: the rest is the padding box. */
const FILL = 0.93;

export type VideoSource = 'ffmpeg' | 'padded demo clip';

export interface VideoClip {
  /** The clip on disk (cached in the data dir), without any stamp. */
  path: string;
  size: number;
  sha256: string;
  /** The listing's `media`: what ffprobe reads from the clip (computed from the encoder's settings when ffprobe is absent). */
  media: MediaProbe;
  source: VideoSource;
}

/** What the service says of its video bodies (RunningService.videoBodies). */
export interface VideoBodiesInfo {
  source: VideoSource;
  /** Bytes of each body that are the clip; the rest is the stamp and padding box. */
  clipBytes: number;
  fileSize: number;
  media: MediaProbe;
}

interface Plan {
  durationS: number;
  width: number;
  height: number;
  /** Bits per second that would fill the size. */
  bitrate: number;
}

/** Duration and frame size for a body of `size` bytes: about a 16 Mbit/s camera clip, inside the demo collection's media_rules (2-120 s, >= 320x240). */
export function planFor(size: number): Plan {
  const durationS = Math.min(120, Math.max(2, Math.round(size / 2_000_000)));
  const bitrate = (size * 8) / durationS;
  const [width, height] = bitrate >= 12e6 ? [1920, 1080] : bitrate >= 3e6 ? [1280, 720] : [320, 240];
  return { durationS, width, height, bitrate };
}

/**
 * The clip for bodies of `size` bytes, made once per size and kept in `dataDir/video-clips/`.
 * `library`: the demo clips, for the padded fallback when ffmpeg cannot make one.
 */
export async function videoClipFor(dataDir: string, size: number, library: ClipLibrary | null): Promise<VideoClip> {
  if (!Number.isInteger(size) || size < VIDEO_BODY_MIN_SIZE) throw new RangeError(`video bodies need a file size of at least ${VIDEO_BODY_MIN_SIZE} bytes, got ${size}`);
  const dir = path.join(dataDir, 'video-clips');
  await fsp.mkdir(dir, { recursive: true });
  const base = path.join(dir, `${CACHE_FORMAT}-h264-${size}`);
  const cached = await readCached(base);
  if (cached) return cached;
  const made = (await encode(base, size)) ?? (await padDemoClip(base, size, library));
  await writeAtomic(`${base}.json`, JSON.stringify({ size: made.size, sha256: made.sha256, media: made.media, source: made.source }));
  return made;
}

async function readCached(base: string): Promise<VideoClip | undefined> {
  try {
    const meta = JSON.parse(await fsp.readFile(`${base}.json`, 'utf8')) as Omit<VideoClip, 'path'>;
    const st = await fsp.stat(`${base}.mp4`);
    // Sizes only, as the media store checks its cache: hashing a 1 GiB clip on every start is what the cache saves.
    return st.size === meta.size ? { ...meta, path: `${base}.mp4` } : undefined;
  } catch {
    return undefined;
  }
}

/** Encodes the clip with ffmpeg; undefined when ffmpeg is missing or cannot get it under the size. */
async function encode(base: string, size: number): Promise<VideoClip | undefined> {
  const plan = planFor(size);
  const room = size - VIDEO_STAMP_MIN;
  const work = `${base}.${process.pid}-${randomBytes(4).toString('hex')}`;
  const segment = `${work}-segment.mp4`;
  const out = `${work}.mp4`;
  const best = `${work}-best.mp4`;
  let bestSize = 0;
  let bitrate = plan.bitrate * FILL;
  try {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      // Temporal noise over the test pattern: the encoder cannot compress it away, so the clip's
      // size follows the bitrate asked (a clean pattern codes to a few kB whatever is asked).
      const source = `testsrc2=size=${plan.width}x${plan.height}:rate=${FPS},noise=alls=24:allf=t+u,format=yuv420p`;
      const kbit = Math.max(16, Math.round(bitrate / 1000));
      const encoded = await ffmpeg(['-f', 'lavfi', '-i', source, '-t', String(Math.min(SEGMENT_S, plan.durationS)), '-an', '-c:v', 'libx264', '-preset', 'ultrafast', '-g', String(FPS * SEGMENT_S), '-b:v', `${kbit}k`, '-maxrate', `${kbit}k`, '-bufsize', `${kbit}k`, segment]);
      // The segment looped by stream copy up to the duration (no second encode); the mp4 muxer writes moov last.
      if (!encoded || !(await ffmpeg(['-stream_loop', '-1', '-i', segment, '-t', String(plan.durationS), '-c', 'copy', out]))) return undefined;
      const got = (await fsp.stat(out)).size;
      // The fullest clip that leaves room for the stamp box is kept; an encoder's rate control misses by a few percent either way.
      if (got <= room && got > bestSize) {
        await fsp.rename(out, best);
        bestSize = got;
      }
      if (bestSize >= room * 0.8) break;
      bitrate *= (room * FILL) / got;
    }
    if (bestSize === 0) return undefined;
    const media = (await ffprobe(best)) ?? { width: plan.width, height: plan.height, fps: FPS, duration: plan.durationS, codec: 'h264' };
    await fsp.rename(best, `${base}.mp4`);
    const st = await fsp.stat(`${base}.mp4`);
    return { path: `${base}.mp4`, size: st.size, sha256: await sha256File(`${base}.mp4`), media, source: 'ffmpeg' };
  } finally {
    await fsp.rm(segment, { force: true });
    await fsp.rm(out, { force: true });
    await fsp.rm(best, { force: true });
  }
}

/** The smallest clean MP4 demo clip, padded by the body's box: a real video, though mostly padding. */
async function padDemoClip(base: string, size: number, library: ClipLibrary | null): Promise<VideoClip> {
  const clip = library
    ?.clean(['mp4'])
    .filter((c) => c.data.length + VIDEO_STAMP_MIN <= size)
    .sort((a, b) => a.data.length - b.data.length)[0];
  if (!clip) throw new Error('video bodies: ffmpeg could not make a clip and no demo MP4 clip was found (src-service/media)');
  await writeAtomic(`${base}.mp4`, clip.data);
  return { path: `${base}.mp4`, size: clip.data.length, sha256: createHash('sha256').update(clip.data).digest('hex'), media: clip.media, source: 'padded demo clip' };
}

/**
 * The box that ends a body: a `free` box (which every MP4 reader skips) from the clip's end to
 * `size`, holding `stamp` (its text, cut to STAMP_TEXT bytes) after its header and zeros after it.
 * Returns the header and text; the zeros, `padding` bytes, follow.
 */
export function stampBox(clipSize: number, size: number, stamp: string): { head: Buffer; padding: number } {
  const length = size - clipSize;
  if (length < VIDEO_STAMP_MIN) throw new RangeError(`no room for the stamp box: ${length} bytes`);
  const wide = length > 0xffffffff;
  const head = Buffer.alloc((wide ? 16 : 8) + STAMP_TEXT, 0x20);
  if (wide) {
    head.writeUInt32BE(1, 0);
    head.write('free', 4, 'latin1');
    head.writeBigUInt64BE(BigInt(length), 8);
  } else {
    head.writeUInt32BE(length, 0);
    head.write('free', 4, 'latin1');
  }
  head.write(stamp.slice(0, STAMP_TEXT), wide ? 16 : 8, 'latin1');
  return { head, padding: length - head.length };
}

const ZEROS = Buffer.alloc(1024 * 1024);

/**
 * Writes the body of one file to `file`: the clip (copied, by reflink where the file system can)
 * and its stamp box; returns its SHA-256 from `clipHash` (the state after the clip's bytes) so
 * the clip is not read again per file.
 */
export async function writeVideoBody(file: string, clip: VideoClip, clipHash: Hash, size: number, stamp: string): Promise<string> {
  const { head, padding } = stampBox(clip.size, size, stamp);
  await fsp.copyFile(clip.path, file);
  const hash = clipHash.copy().update(head);
  const handle = await fsp.open(file, 'a');
  try {
    await handle.write(head);
    for (let left = padding; left > 0; left -= ZEROS.length) {
      const chunk = left >= ZEROS.length ? ZEROS : ZEROS.subarray(0, left);
      hash.update(chunk);
      await handle.write(chunk);
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

/** The SHA-256 state after the clip's bytes (read once per service start that writes a body). */
export function clipHashState(clip: VideoClip): Promise<Hash> {
  return hashOf(clip.path);
}

async function hashOf(file: string): Promise<Hash> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash;
}

async function sha256File(file: string): Promise<string> {
  return (await hashOf(file)).digest('hex');
}

async function writeAtomic(file: string, data: string | Buffer): Promise<void> {
  const tmp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  await fsp.writeFile(tmp, data);
  await fsp.rename(tmp, file);
}

/** Runs ffmpeg quietly; false when it is missing or fails. */
function ffmpeg(args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('close', (code) => resolve(code === 0));
  });
}

/** ffprobe's view of the clip in the listing's terms; undefined when ffprobe is absent. */
function ffprobe(file: string): Promise<MediaProbe | undefined> {
  return new Promise((resolve) => {
    const child = spawn('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,width,height,r_frame_rate:format=duration', '-of', 'json', file], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (s: string) => (out += s));
    child.once('error', () => resolve(undefined));
    child.once('close', (code) => {
      if (code !== 0) return resolve(undefined);
      try {
        const json = JSON.parse(out) as { streams?: Array<{ codec_name?: string; width?: number; height?: number; r_frame_rate?: string }>; format?: { duration?: string } };
        const v = json.streams?.[0];
        if (!v?.width || !v.height) return resolve(undefined);
        const [num, den] = (v.r_frame_rate ?? '0/1').split('/').map(Number) as [number, number];
        resolve({ width: v.width, height: v.height, fps: Math.round((den ? num / den : num) * 1000) / 1000, duration: Math.round(Number(json.format?.duration) * 1000) / 1000, codec: v.codec_name ?? '' });
      } catch {
        resolve(undefined);
      }
    });
  });
}

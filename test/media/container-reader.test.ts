// The in-process container reader (src-main/sync/media/container/) against what ffprobe says: the
// committed demo clips (their ffprobe answers are in clips.json, so no ffmpeg is needed), and, where
// Debian's ffmpeg and ffprobe are on PATH, small variants of every container and codec made on the
// spot and probed by both. Then the properties the sync relies on: the same answer whatever the
// chunk sizes, never a throw and a bounded answer whatever the bytes (a seeded fuzz), random bytes
// decided within 12 bytes, and a local mp4 whose moov is at its end read by seeking, not whole.
import { execFile, spawnSync } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaProbe } from '../../src-shared/delivery-api';
import { createContainerReader, probeBuffer, probeFile, type HeaderProbe, type OpenFile } from '../../src-main/sync/media/container/container-reader';
import { ffprobeVideo, toolPresent } from '../support/media-tools';

const mediaDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src-service/media');
const clips = (JSON.parse(readFileSync(path.join(mediaDir, 'clips.json'), 'utf8')) as { clips: Array<MediaProbe & { file: string }> }).clips;
const clipBytes = new Map(clips.map((c) => [c.file, readFileSync(path.join(mediaDir, c.file))]));

/** A deterministic PRNG (mulberry32): the fuzz and the chunkings are the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const be32 = (n: number) => Buffer.from([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);

/** The file fed in chunks of the sizes `size()` picks, stopping once the reader is done. */
function probeChunked(buf: Buffer, size: () => number): HeaderProbe {
  const reader = createContainerReader();
  for (let at = 0; at < buf.length && !reader.done; ) {
    const n = Math.max(1, size());
    reader.push(buf.subarray(at, at + n));
    at += n;
  }
  return reader.finish(buf.length);
}

/** media.csv's tolerances (media-check.ts listingDisagrees), with exact codec names. */
function expectSameMedia(got: HeaderProbe, want: MediaProbe, what: string): void {
  expect(got.kind, `${what}: ${JSON.stringify(got)}`).toBe('probed');
  if (got.kind !== 'probed') return;
  const m = got.media;
  expect({ width: m.width, height: m.height, codec: m.codec }, what).toEqual({ width: want.width, height: want.height, codec: want.codec });
  expect(Math.abs(m.fps - want.fps), `${what}: fps ${m.fps} vs ${want.fps}`).toBeLessThanOrEqual(0.01 * Math.max(m.fps, want.fps));
  expect(Math.abs(m.duration - want.duration), `${what}: duration ${m.duration} vs ${want.duration}`).toBeLessThanOrEqual(0.1 + 1e-9);
}

/** A verdict of the declared shape, with sane numbers. */
function expectBounded(r: HeaderProbe): void {
  if (r.kind === 'unreadable') return void expect(r.detail).toMatch(/\w/);
  const { width, height, fps, duration, codec } = r.media;
  const sane = Number.isInteger(width) && width > 0 && Number.isInteger(height) && height > 0 && fps >= 0 && duration >= 0 && Number.isFinite(fps + duration);
  expect(sane && typeof codec === 'string', JSON.stringify(r.media)).toBe(true);
}

/** fs.promises.open, counting what is read through it. */
function countingOpen(counts: { bytes: number; reads: number }): OpenFile {
  return async (p, flags) => {
    const h = await open(p, flags);
    const read = async (buffer: Buffer, offset: number, length: number, position: number) => {
      const r = await h.read(buffer, offset, length, position);
      counts.bytes += r.bytesRead;
      counts.reads++;
      return r;
    };
    return { stat: () => h.stat(), close: () => h.close(), read };
  };
}

/**
 * A Matroska file as a browser's MediaRecorder writes one: no SeekHead, Cues, Tags or Void, no
 * Duration, no DefaultDuration, Clusters of unknown size, and (`segment: 'unknown'`) a Segment of
 * unknown size too.
 */
function asBrowserWebm(b: Buffer, segment: 'unknown' | 'known' = 'unknown'): Buffer {
  const masters = new Set([0x18538067, 0x1549a966, 0x1654ae6b, 0xae, 0xe0, 0x1f43b675]);
  const dropped = new Set([0x114d9b74, 0x1c53bb6b, 0x1254c367, 0xec, 0x4489, 0x23e383]);
  const unknown = new Set(segment === 'unknown' ? [0x18538067, 0x1f43b675] : [0x1f43b675]);
  const vint = (at: number, keepMarker: boolean): [number, number] => {
    let length = 1;
    while (length < 8 && !(b[at]! & (0x80 >> (length - 1)))) length++;
    let v = keepMarker ? b[at]! : b[at]! & (0xff >> length);
    for (let i = 1; i < length; i++) v = v * 256 + b[at + i]!;
    return [v, length];
  };
  const rewrite = (start: number, end: number): Buffer[] => {
    const out: Buffer[] = [];
    for (let at = start; at < end; ) {
      const [id, idLength] = vint(at, true);
      const [size, sizeLength] = vint(at + idLength, false);
      const dataAt = at + idLength + sizeLength;
      const next = size === 2 ** (7 * sizeLength) - 1 ? end : dataAt + size;
      if (masters.has(id)) {
        const body = Buffer.concat(rewrite(dataAt, next));
        const sized = Buffer.alloc(8);
        sized.writeBigUInt64BE(unknown.has(id) ? 0x01ff_ffff_ffff_ffffn : BigInt(body.length) | (1n << 56n));
        out.push(b.subarray(at, at + idLength), sized, body);
      } else if (!dropped.has(id)) out.push(b.subarray(at, next));
      at = next;
    }
    return out;
  };
  return Buffer.concat(rewrite(0, b.length));
}

describe('the demo clips (clips.json: what ffprobe said when they were made)', () => {
  for (const clip of clips) {
    it(`reads ${clip.file} as ffprobe did`, async () => {
      expectSameMedia(probeBuffer(clipBytes.get(clip.file)!), clip, `${clip.file} probeBuffer`);
      expectSameMedia(await probeFile(path.join(mediaDir, clip.file), open), clip, `${clip.file} probeFile`);
    });
  }

  it('gives the same answer whatever the chunk sizes', () => {
    const random = rng(11);
    for (const [file, buf] of clipBytes) {
      const whole = probeBuffer(buf);
      expect(probeChunked(buf, () => 1), `${file} in 1-byte chunks`).toEqual(whole);
      expect(probeChunked(buf, () => 1 + Math.floor(random() * 700)), `${file} in random chunks`).toEqual(whole);
      expect(probeChunked(buf, () => 1 + Math.floor(random() * 3) * 4096), `${file} in 1 B/4 KiB/8 KiB chunks`).toEqual(whole);
    }
  });

  it('gives the same answer to a reader that seeks to wants() and pushes with positions', () => {
    for (const [file, buf] of clipBytes) {
      const reader = createContainerReader();
      for (let at = reader.wants(); at !== null && at < buf.length; at = reader.wants()) reader.push(buf.subarray(at, at + 100), at);
      expect(reader.finish(buf.length), file).toEqual(probeBuffer(buf));
    }
  });

  it('computes duration and rate from the block timestamps of a WebM/MKV with neither (as a browser writes it)', () => {
    for (const clip of clips.filter((c) => /\.(webm|mkv)$/.test(c.file))) {
      for (const segment of ['unknown', 'known'] as const) {
        const browser = asBrowserWebm(clipBytes.get(clip.file)!, segment);
        expectSameMedia(probeBuffer(browser), clip, `${clip.file}, browser-like, Segment of ${segment} size`);
        expect(probeChunked(browser, () => 1)).toEqual(probeBuffer(browser));
      }
    }
  });
});

describe('files that are not videos we read', () => {
  const clip = (name: string) => Buffer.from(clipBytes.get(name)!);
  /** A clip with the first occurrence of `from` replaced by `to` (same length). */
  const patched = (name: string, from: Buffer | string, to: Buffer | string) => {
    const b = clip(name);
    const at = b.indexOf(from);
    expect(at).toBeGreaterThanOrEqual(0);
    Buffer.from(to as string, typeof to === 'string' ? 'latin1' : undefined).copy(b, at);
    return b;
  };
  const unreadable = (b: Buffer) => {
    const r = probeBuffer(b);
    return r.kind === 'unreadable' ? r.detail : `probed ${JSON.stringify(r.media)}`;
  };

  it('decides random bytes, a JPEG and text within the first 12 bytes', () => {
    const random = rng(3);
    const noise = Buffer.from(Array.from({ length: 1024 }, () => Math.floor(random() * 256)));
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]), noise]);
    for (const b of [noise, jpeg, Buffer.from('id,name\n1,Ann\n2,Bob\n')]) {
      const reader = createContainerReader();
      reader.push(b.subarray(0, 12));
      expect(reader.done).toBe(true);
      expect(reader.wants()).toBeNull();
      expect(reader.finish(b.length)).toEqual({ kind: 'unreadable', detail: 'not a video container we can read' });
    }
    expect(unreadable(Buffer.alloc(0))).toBe('the file is empty');
    expect(unreadable(Buffer.from([0x1a, 0x45, 0xdf]))).toBe('not a video container we can read');
    expect(unreadable(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))).toBe('the file ends inside its header');
  });

  it('says what is missing: no moov, no video track, a header cut short', () => {
    const mp4 = clip('clean-smptebars-30fps.mp4');
    // ftyp then an mdat to the end of the file (size 0): no moov.
    const noMoov = Buffer.concat([mp4.subarray(0, mp4.readUInt32BE(0)), Buffer.from([0, 0, 0, 0]), Buffer.from('mdat'), Buffer.alloc(5000)]);
    expect(unreadable(noMoov)).toBe('the file has no movie header (moov box)');
    expect(unreadable(patched('clean-smptebars-30fps.mp4', 'vide', 'soun'))).toBe('no video track');
    expect(unreadable(patched('clean-smptebars-25fps.mkv', Buffer.from([0x83, 0x81, 0x01]), Buffer.from([0x83, 0x81, 0x02])))).toBe('no video track');
    expect(unreadable(patched('wrong-format-mpeg4.avi', 'vids', 'auds'))).toBe('no video track');
    const moovAt = mp4.indexOf('moov') - 4;
    expect(unreadable(mp4.subarray(0, moovAt + 100))).toBe('the file ends inside its header');
    expect(unreadable(clip('clean-smptebars-25fps.mkv').subarray(0, 200))).toBe('the file ends inside its header');
    expect(unreadable(clip('wrong-format-mpeg4.avi').subarray(0, 300))).toBe('the file ends inside its header');
  });

  it('gives up on a header box too large to be one, without buffering it', () => {
    // moov > trak > mdia > minf > stbl > a 32 MiB stsd, each declaring the size it would have; the file stops there.
    const header = (type: string, size: number) => Buffer.concat([be32(size), Buffer.from(type, 'latin1')]);
    const stsd = 32 * 1024 * 1024;
    const path = ['moov', 'trak', 'mdia', 'minf', 'stbl'].map((type, i) => header(type, stsd + 8 * (5 - i)));
    const file = Buffer.concat([header('ftyp', 16), Buffer.from('isom\0\0\0\0', 'latin1'), ...path, header('stsd', stsd), Buffer.alloc(1000)]);
    const reader = createContainerReader();
    reader.push(file);
    expect(reader.done).toBe(true);
    expect(reader.finish(file.length + stsd)).toEqual({ kind: 'unreadable', detail: 'a header box of the file is too large to be a header' });
  });
});

describe('never throws, whatever the bytes', () => {
  const seeds = [...clipBytes.values()];

  it('on every clip cut short at many points', () => {
    for (const [file, buf] of clipBytes) {
      const cuts = [...Array.from({ length: 300 }, (_, i) => i), ...Array.from({ length: Math.ceil(buf.length / 97) }, (_, i) => i * 97)];
      for (const cut of cuts) {
        const part = buf.subarray(0, cut);
        const r = probeBuffer(part);
        expectBounded(r);
        expect(probeChunked(part, () => 7), `${file} cut at ${cut}`).toEqual(r);
      }
    }
  });

  it('on a few thousand mutated clips (byte flips, odd sizes, splices), in any chunking', () => {
    const random = rng(20240601);
    const int = (n: number) => Math.floor(random() * n);
    const specials = [0, 1, 7, 8, 0xffffffff, 0x7fffffff, 0x80000000, 16];
    for (let i = 0; i < 3000; i++) {
      const b = Buffer.from(seeds[int(seeds.length)]!);
      // Mutations land mostly in the headers (the first KiB or two), where they matter.
      const where = () => (random() < 0.8 ? int(Math.min(b.length, 2048)) : int(b.length));
      for (let m = 1 + int(4); m > 0; m--) {
        const at = where();
        const kind = int(4);
        if (kind === 0) b[at] = int(256);
        else if (kind === 1 && at + 4 <= b.length) b.writeUInt32BE(specials[int(specials.length)]!, at);
        else if (kind === 2) b[at] = [0x01, 0xff, 0x00, 0x80, 0x10, 0x1f][int(6)]!;
        else b.fill(int(256), at, Math.min(b.length, at + 1 + int(16)));
      }
      const input = random() < 0.3 ? b.subarray(0, int(b.length)) : b;
      const r = probeBuffer(input);
      expectBounded(r);
      expect(probeChunked(input, () => 1 + int(300)), `mutation ${i}`).toEqual(r);
    }
  });

  it('on huge declared sizes, zero sizes and deep nesting, quickly', () => {
    const header = (type: string, size: number) => Buffer.concat([be32(size), Buffer.from(type, 'latin1')]);
    const ftyp = Buffer.concat([header('ftyp', 16), Buffer.from('isom\0\0\0\0', 'latin1')]);
    const inputs = [
      // A moov of 64-bit size 2^52; 20000 boxes of size 0 ("to the end") each inside the last; 4 KiB of zeros.
      Buffer.concat([ftyp, header('moov', 1), Buffer.from([0, 0x10, 0, 0, 0, 0, 0, 0])]),
      Buffer.concat([ftyp, ...Array.from({ length: 20000 }, (_, i) => header(['moov', 'trak', 'mdia', 'minf', 'stbl'][i % 5]!, 0))]),
      Buffer.concat([ftyp, Buffer.alloc(4096)]),
      // 20000 Segments and Clusters of unknown size, one inside the other; a Segment and an Info of size 2^56 - 2.
      Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x80]), ...Array.from({ length: 20000 }, (_, i) => Buffer.from(i % 2 ? [0x1f, 0x43, 0xb6, 0x75, 0xff] : [0x18, 0x53, 0x80, 0x67, 0xff]))]),
      Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x80, 0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x15, 0x49, 0xa9, 0x66, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe]),
      // RIFF, hdrl and avih of 4 GiB.
      Buffer.concat([Buffer.from('RIFF\xff\xff\xff\xffAVI LIST\xff\xff\xff\xffhdrlavih\xff\xff\xff\xff', 'latin1'), Buffer.alloc(64)]),
    ];
    const started = performance.now();
    for (const b of inputs) {
      expectBounded(probeBuffer(b));
      expect(probeChunked(b, () => 5)).toEqual(probeBuffer(b));
    }
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('probeFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-container-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('seeks past the media data of an mp4 whose moov is at its end, reading a fraction of it', async () => {
    const clip = clips.find((c) => c.file === 'clean-testsrc-25fps.mp4')!;
    const mp4 = clipBytes.get(clip.file)!;
    const ftypEnd = mp4.readUInt32BE(0);
    const moovAt = mp4.indexOf('moov') - 4;
    const moov = mp4.subarray(moovAt, moovAt + mp4.readUInt32BE(moovAt));
    // ftyp, 8 MiB of media data, then the moov (its chunk offsets no longer point at the samples: the reader does not look at them).
    const mdat = Buffer.alloc(8 * 1024 * 1024 + 8);
    mdat.writeUInt32BE(mdat.length, 0);
    mdat.write('mdat', 4, 'latin1');
    const file = path.join(dir, 'moov-at-end.mp4');
    const bytes = Buffer.concat([mp4.subarray(0, ftypEnd), mdat, moov]);
    await fs.writeFile(file, bytes);
    const counts = { bytes: 0, reads: 0 };
    expectSameMedia(await probeFile(file, countingOpen(counts)), clip, 'moov at the end');
    expect(counts.bytes).toBeLessThan(256 * 1024);
    expect(counts.reads).toBeLessThanOrEqual(4);
    // The streaming reader steps over the same bytes: having seen the mdat's header, it wants the moov next.
    const reader = createContainerReader();
    reader.push(bytes.subarray(0, 64 * 1024));
    expect(reader.wants()).toBe(ftypEnd + mdat.length);
  });

  it('rejects when the file cannot be opened (an I/O error says nothing of the content)', async () => {
    await expect(probeFile(path.join(dir, 'absent.mp4'), open)).rejects.toThrow(/ENOENT/);
  });
});

const tools = toolPresent('ffmpeg') && toolPresent('ffprobe');
const encoders = tools ? spawnSync('ffmpeg', ['-hide_banner', '-encoders'], { encoding: 'utf8' }).stdout : '';
const has = (encoder: string) => new RegExp(`\\s${encoder}\\s`).test(encoders);
const av1 = has('libsvtav1') ? ['-c:v', 'libsvtav1', '-preset', '12'] : has('libaom-av1') ? ['-c:v', 'libaom-av1', '-cpu-used', '8', '-usage', 'realtime'] : null;

/** lavfi testsrc of this size and rate, 2 s. */
const src = (size = '176x144', rate = '25') => ['-f', 'lavfi', '-i', `testsrc=size=${size}:rate=${rate}:duration=2`];
const x264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
const vp8 = ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '200k'];

interface Variant {
  file: string;
  args: string[];
  needs?: boolean;
  /** Rewrites ffmpeg's output before probing (a browser-made WebM). */
  rewrite?: (b: Buffer) => Buffer;
  /** Where ffprobe gives no duration (N/A): the length the file was made with. */
  nominalDuration?: number;
}

const VARIANTS: Variant[] = [
  { file: 'moov-at-end.mp4', args: [...src(), ...x264] },
  { file: 'faststart.mp4', args: [...src(), ...x264, '-movflags', '+faststart'] },
  { file: 'fragmented.mp4', args: [...src(), ...x264, '-g', '12', '-movflags', 'frag_keyframe+empty_moov+default_base_moof'] },
  { file: 'fragmented-moov-samples.mp4', args: [...src(), ...x264, '-g', '12', '-movflags', 'frag_keyframe'] },
  { file: 'ntsc-29.97.mp4', args: [...src('176x144', '30000/1001'), ...x264] },
  { file: 'odd-175x131.mp4', args: [...src('175x131'), '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv444p'] },
  { file: 'audio-first.mp4', args: ['-f', 'lavfi', '-i', 'sine=duration=2', ...src(), '-map', '0:a', '-map', '1:v', ...x264, '-c:a', 'aac'] },
  { file: 'audio-longer.mp4', args: [...src(), '-f', 'lavfi', '-i', 'sine=duration=3', ...x264, '-c:a', 'aac'] },
  { file: 'mpeg2.mp4', args: [...src(), '-c:v', 'mpeg2video'] },
  { file: 'hevc.mp4', args: [...src(), '-c:v', 'libx265', '-preset', 'ultrafast', '-x265-params', 'log-level=none'], needs: has('libx265') },
  { file: 'av1.mp4', args: [...src(), ...(av1 ?? [])], needs: av1 !== null },
  { file: 'h264.mov', args: [...src(), ...x264] },
  { file: 'prores.mov', args: [...src(), '-c:v', 'prores_ks', '-profile:v', '0'], needs: has('prores_ks') },
  { file: 'h264.mkv', args: [...src(), ...x264] },
  { file: 'mpeg4-odd-175x131.mkv', args: [...src('175x131'), '-c:v', 'mpeg4'] },
  { file: 'vp8.webm', args: [...src(), ...vp8], needs: has('libvpx') },
  { file: 'vp9.webm', args: [...src(), '-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '200k'], needs: has('libvpx-vp9') },
  { file: 'live.webm', args: [...src(), ...vp8, '-f', 'webm', '-live', '1'], needs: has('libvpx'), nominalDuration: 2 },
  // MediaRecorder's WebM: Opus beside the video, no Duration, no DefaultDuration, unknown sizes.
  { file: 'browser-29.97.webm', args: [...src('176x144', '30000/1001'), '-f', 'lavfi', '-i', 'sine=duration=2', ...vp8, '-c:a', 'libopus'], needs: has('libvpx') && has('libopus'), rewrite: (b) => asBrowserWebm(b), nominalDuration: 2.002 },
  { file: 'mpeg4.avi', args: [...src(), '-c:v', 'mpeg4'] },
  { file: 'mjpeg.avi', args: [...src(), '-c:v', 'mjpeg'] },
  { file: 'mp3-longer.avi', args: [...src(), '-f', 'lavfi', '-i', 'sine=duration=3', '-c:v', 'mpeg4', '-c:a', 'libmp3lame'], needs: has('libmp3lame') },
];

describe('variants made by ffmpeg, against ffprobe', () => {
  let dir: string;
  const made = new Map<string, Promise<void>>();

  beforeAll(async () => {
    if (!tools) return;
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-variants-'));
    // Two encodes at a time (two cores); each test awaits its own file.
    const queue = VARIANTS.filter((v) => v.needs !== false);
    const run = async (v: Variant) => {
      const file = path.join(dir, v.file);
      await promisify(execFile)('ffmpeg', ['-v', 'error', '-y', '-threads', '1', ...v.args, file]);
      if (v.rewrite) await fs.writeFile(file, v.rewrite(await fs.readFile(file)));
    };
    const lanes: Array<Promise<unknown>> = [Promise.resolve(), Promise.resolve()];
    queue.forEach((v, i) => {
      const p = lanes[i % 2]!.then(() => run(v));
      lanes[i % 2] = p.catch(() => undefined);
      made.set(v.file, p);
    });
    await Promise.allSettled(made.values());
  });

  afterAll(async () => {
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  for (const v of VARIANTS) {
    const skip = !tools ? ' (skipped: ffmpeg and ffprobe are not on PATH)' : v.needs === false ? ' (skipped: this ffmpeg has no encoder for it)' : '';
    it.skipIf(skip !== '')(`reads ${v.file} as ffprobe does${skip}`, async () => {
      await made.get(v.file);
      const file = path.join(dir, v.file);
      const want = await ffprobeVideo(file);
      // ffprobe gives no duration for a WebM without one (a browser's): the reader's is the span of the frames, checked against the length made.
      if (v.nominalDuration !== undefined && want.duration === null) want.duration = v.nominalDuration;
      expect(want.duration, `ffprobe's duration of ${v.file}`).not.toBeNull();
      const expected = { ...want, duration: want.duration! };
      const bytes = await fs.readFile(file);
      expectSameMedia(probeBuffer(bytes), expected, `${v.file} probeBuffer`);
      expectSameMedia(await probeFile(file, open), expected, `${v.file} probeFile`);
      expect(probeChunked(bytes, () => 1), `${v.file} in 1-byte chunks`).toEqual(probeBuffer(bytes));
    });
  }
});

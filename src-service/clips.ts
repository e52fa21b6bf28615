// The real demo videos (src-service/media/, made by scripts/make-demo-media.ts) and the bodies
// cut from them. Every served file is a clip plus a 64-byte stamp naming the file, its version
// and the seed, wrapped in an element its container skips (an MP4/MOV `free` box, a Matroska
// `Void`, an AVI `JUNK` chunk), so every file has its own SHA-256 and still plays and probes as
// the clip. Only the clips are held in memory (~400 KiB); a body is built per request and a
// file's SHA-256 costs one copy of the clip's hash state plus 64 bytes.

import { createHash, type Hash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What ffprobe says of a clip's first video stream (a file's `media` in the listing). */
export interface MediaProbe {
  width: number;
  height: number;
  fps: number;
  duration: number;
  codec: string;
}

export type ClipRole = 'clean' | 'too_small' | 'too_short' | 'wrong_format';

export interface Clip {
  /** File name in the media folder, e.g. clean-testsrc-25fps.mp4. */
  file: string;
  role: ClipRole;
  /** The spec's format name (media_rules.formats): mp4, mov, webm, matroska, avi. */
  format: string;
  ext: string;
  contentType: string;
  /** What ffprobe says of the clip (clips.json). */
  media: MediaProbe;
  /** The clip with its container's length field grown by STAMP_LENGTH, so clip + stamp is one valid file. */
  data: Buffer;
  /** SHA-256 state after `data`. */
  hashed: Hash;
}

export const STAMP_LENGTH = 64;

interface SidecarClip {
  file: string;
  role: ClipRole;
  format: string;
  content_type: string;
  width: number;
  height: number;
  fps: number;
  duration: number;
  codec: string;
  size_bytes: number;
  sha256: string;
}

export class ClipLibrary {
  private constructor(readonly clips: readonly Clip[]) {}

  /** Reads and checks every clip of `dir` (size and SHA-256 against clips.json). */
  static load(dir: string): ClipLibrary {
    const sidecar = JSON.parse(readFileSync(path.join(dir, 'clips.json'), 'utf8')) as { clips: SidecarClip[] };
    const clips = sidecar.clips.map((c): Clip => {
      const raw = readFileSync(path.join(dir, c.file));
      const sha256 = createHash('sha256').update(raw).digest('hex');
      if (raw.length !== c.size_bytes || sha256 !== c.sha256) throw new Error(`demo media ${c.file} does not match clips.json (run scripts/make-demo-media.ts)`);
      const data = withRoomForStamp(raw, c.format, c.file);
      return {
        file: c.file,
        role: c.role,
        format: c.format,
        ext: path.extname(c.file).slice(1),
        contentType: c.content_type,
        media: { width: c.width, height: c.height, fps: c.fps, duration: c.duration, codec: c.codec },
        data,
        hashed: createHash('sha256').update(data),
      };
    });
    return new ClipLibrary(clips);
  }

  /** Clean clips in any of `formats` (a collection's media_rules.formats), in clips.json order. */
  clean(formats: readonly string[]): Clip[] {
    return this.clips.filter((c) => c.role === 'clean' && formats.includes(c.format));
  }

  /** The clip of a role, preferring one of `formats`. */
  ofRole(role: ClipRole, formats: readonly string[]): Clip | undefined {
    const all = this.clips.filter((c) => c.role === role);
    return all.find((c) => formats.includes(c.format)) ?? all[0];
  }
}

/** Size of a file cut from `clip`. */
export function clipBodySize(clip: Clip): number {
  return clip.data.length + STAMP_LENGTH;
}

export function clipBodySha256(clip: Clip, fileId: number, version: number, seed: number): string {
  return clip.hashed.copy().update(stampFor(clip, fileId, version, seed)).digest('hex');
}

/** The whole body (built per request; never kept). */
export function clipBody(clip: Clip, fileId: number, version: number, seed: number): Buffer {
  return Buffer.concat([clip.data, stampFor(clip, fileId, version, seed)], clipBodySize(clip));
}

function stampFor(clip: Clip, fileId: number, version: number, seed: number): Buffer {
  const stamp = Buffer.alloc(STAMP_LENGTH, 0x20);
  let at: number;
  if (clip.format === 'webm' || clip.format === 'matroska') {
    stamp[0] = 0xec; // EBML Void
    stamp[1] = 0x80 | (STAMP_LENGTH - 2); // one-byte size
    at = 2;
  } else if (clip.format === 'avi') {
    stamp.write('JUNK', 0, 'latin1');
    stamp.writeUInt32LE(STAMP_LENGTH - 8, 4);
    at = 8;
  } else {
    stamp.writeUInt32BE(STAMP_LENGTH, 0);
    stamp.write('free', 4, 'latin1');
    at = 8;
  }
  stamp.write(`dataset-sync demo file ${fileId} v${version} seed ${seed}`.slice(0, STAMP_LENGTH - at), at, 'latin1');
  return stamp;
}

/**
 * A copy of the clip whose outer length covers the stamp: Matroska's Segment size (an EBML
 * variable-length integer) and AVI's RIFF size. MP4/MOV need nothing: a top-level box follows.
 */
function withRoomForStamp(raw: Buffer, format: string, name: string): Buffer {
  const data = Buffer.from(raw);
  if (format === 'avi') {
    if (data.toString('latin1', 0, 4) !== 'RIFF') throw new Error(`demo media ${name}: no RIFF header`);
    data.writeUInt32LE(data.readUInt32LE(4) + STAMP_LENGTH, 4);
  } else if (format === 'webm' || format === 'matroska') {
    const header = readVint(data, 4); // after the EBML header's 4-byte ID
    const segmentAt = 4 + header.length + header.value;
    if (data.readUInt32BE(segmentAt) !== 0x18538067) throw new Error(`demo media ${name}: no Segment after the EBML header`);
    const size = readVint(data, segmentAt + 4);
    // An unknown size (all ones) already runs to the end of the file.
    if (!size.unknown) writeVint(data, segmentAt + 4, size.length, size.value + STAMP_LENGTH);
  }
  return data;
}

function readVint(data: Buffer, at: number): { length: number; value: number; unknown: boolean } {
  const first = data[at] ?? 0;
  let length = 1;
  while (length <= 8 && !(first & (0x80 >> (length - 1)))) length++;
  if (length > 8) throw new Error('bad EBML size');
  let value = first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    const byte = data[at + i] ?? 0;
    value = value * 256 + byte;
    allOnes &&= byte === 0xff;
  }
  return { length, value, unknown: allOnes };
}

function writeVint(data: Buffer, at: number, length: number, value: number): void {
  let v = value;
  for (let i = length - 1; i >= 1; i--) {
    data[at + i] = v % 256;
    v = Math.floor(v / 256);
  }
  if (v >= 0x80 >> (length - 1)) throw new Error('EBML size too large for its field');
  data[at] = (0x80 >> (length - 1)) | v;
}

let shared: ClipLibrary | null | undefined;

/**
 * The clips, loaded once per process, or null when the media folder is not there (the service
 * then serves synthetic bodies). Looked for in DATASET_SYNC_DEMO_MEDIA_DIR, beside this module
 * (tsx, tests) and in src-service/media under the working directory (electron-vite's bundle).
 */
export function sharedClipLibrary(): ClipLibrary | null {
  if (shared !== undefined) return shared;
  const candidates = [process.env.DATASET_SYNC_DEMO_MEDIA_DIR, path.join(path.dirname(fileURLToPath(import.meta.url)), 'media'), path.join(process.cwd(), 'src-service', 'media')];
  const dir = candidates.find((d): d is string => d !== undefined && d !== '' && existsSync(path.join(d, 'clips.json')));
  shared = dir === undefined ? null : ClipLibrary.load(dir);
  return shared;
}

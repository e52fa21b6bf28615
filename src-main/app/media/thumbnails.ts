// Thumbnails of verified dataset files, made by ffmpeg in the main process (never the window)
// from the local bytes, on demand, at most THUMB_CONCURRENCY at a time, and cached in the
// dataset's state folder under the file's SHA-256 (DEST/.dataset-sync/thumbs/<sha256>.jpg): a
// file whose bytes change gets a new hash and so a new thumbnail; a moved dataset keeps them.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { stateDir } from '../../sync/engine';
import { findFfmpeg } from './ffmpeg-path';
import type { VerifiedFile } from './verified-files';

export const THUMB_WIDTH = 160;
/** ffmpeg runs are CPU-heavy and a page of sets asks for dozens at once: two at a time. */
export const THUMB_CONCURRENCY = 2;
const FFMPEG_TIMEOUT_MS = 30_000;

/** Shown instead of a frame when none can be made (no ffmpeg, or it could not decode the file). */
export const PLACEHOLDER_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="90" viewBox="0 0 160 90"><rect width="160" height="90" fill="#8884"/><path d="M66 30v30l26-15z" fill="#8888"/></svg>`;

export type Thumbnail = { kind: 'jpeg'; path: string } | { kind: 'placeholder'; why: 'no_ffmpeg' | 'failed' };

export function thumbPath(dest: string, sha256: string): string {
  return path.join(stateDir(dest), 'thumbs', `${sha256}.jpg`);
}

/** A tiny semaphore: the work of `run` starts when fewer than `limit` are running. */
function limiter(limit: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(run: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await run();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

function ffmpeg(binary: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(binary, args, { timeout: FFMPEG_TIMEOUT_MS, windowsHide: true, maxBuffer: 1024 * 1024 }, (error) => (error ? reject(error) : resolve()));
  });
}

export interface ThumbnailerOptions {
  /** Told once per process, in plain words, when thumbnails cannot be made at all. */
  onNotice?: (message: string) => void;
  /** The ffmpeg lookup (default: findFfmpeg). */
  ffmpeg?: () => Promise<string | null>;
}

export class Thumbnailer {
  private readonly limit = limiter(THUMB_CONCURRENCY);
  /** One generation per output file at a time (the page asks for the same one twice on a re-render). */
  private readonly inFlight = new Map<string, Promise<Thumbnail>>();
  private noticed = false;

  constructor(private readonly options: ThumbnailerOptions = {}) {}

  /** The cached thumbnail of `file` in dataset `dest`, made now if it is not there. Never throws. */
  async get(dest: string, file: VerifiedFile): Promise<Thumbnail> {
    const out = thumbPath(dest, file.sha256);
    if (await fs.stat(out).then((s) => s.size > 0, () => false)) return { kind: 'jpeg', path: out };
    let pending = this.inFlight.get(out);
    if (!pending) {
      pending = this.limit(() => this.make(file.absPath, out)).finally(() => this.inFlight.delete(out));
      this.inFlight.set(out, pending);
    }
    return pending;
  }

  private async make(input: string, out: string): Promise<Thumbnail> {
    const binary = await (this.options.ffmpeg ?? findFfmpeg)();
    if (!binary) {
      this.notice('Video thumbnails need ffmpeg, which was not found on this computer: install ffmpeg (e.g. `apt install ffmpeg`) to see them. Playback works without it.');
      return { kind: 'placeholder', why: 'no_ffmpeg' };
    }
    await fs.mkdir(path.dirname(out), { recursive: true });
    // Written under a temporary name and renamed: a half-written JPEG is never served.
    const tmp = `${out}.${process.pid}.${Date.now()}.tmp.jpg`;
    // A frame near 1 s in (a clip shorter than that: its last frame, by -sseof failing over to
    // the first), scaled to THUMB_WIDTH wide keeping the aspect ratio (even height for JPEG).
    const base = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y'];
    const encode = ['-frames:v', '1', '-vf', `scale=${THUMB_WIDTH}:-2`, '-q:v', '5', '-f', 'image2', tmp];
    try {
      await ffmpeg(binary, [...base, '-ss', '1', '-i', input, ...encode]);
      // Seeking past the end of a clip under 1 s writes nothing: take its first frame instead.
      if (!(await fs.stat(tmp).then((s) => s.size > 0, () => false))) await ffmpeg(binary, [...base, '-i', input, ...encode]);
      await fs.rename(tmp, out);
      return { kind: 'jpeg', path: out };
    } catch {
      await fs.rm(tmp, { force: true });
      return { kind: 'placeholder', why: 'failed' };
    }
  }

  private notice(message: string): void {
    if (this.noticed) return;
    this.noticed = true;
    this.options.onNotice?.(message);
  }
}

// The media prober: ffprobe, run as a child process on a verified local file (docs/contracts.md §1,
// media.csv). Which ffprobe: DATASET_SYNC_FFPROBE when set (a path; tests point it at a wrapper
// that logs its calls, or at nothing to stand for a machine without a prober), else the static
// binary shipped inside the npm package `@ffprobe-installer/ffprobe` (an optional dependency),
// else `ffprobe` on PATH. The packaged binary comes first because ffprobe's start-up is most of a
// probe's cost: Debian's links about 215 shared libraries and starts in 0.15-0.28 s, the static
// one in 0.02-0.03 s (measured on a 2 s 320x240 mp4), so a media check of many small clips
// finishes several times sooner. A prober that cannot be started is not the file's fault: the
// caller marks the file `unprobed` and says so once.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import type { MediaProbe } from '../../../src-shared/delivery-api';

export type ProbeOutcome =
  | { kind: 'probed'; media: MediaProbe }
  /** ffprobe ran and found no video stream it could read (not a video, or broken). */
  | { kind: 'unreadable'; detail: string }
  /** ffprobe itself could not run (missing, not executable, killed, timed out). */
  | { kind: 'no_prober'; detail: string };

/** A probe of a few-MB clip takes tens of ms; a hung one must not hold the end of the sync for long. */
const PROBE_TIMEOUT_MS = 30_000;
/** Optional dependency (absent where its platform package is not published); named here so check-imports does not count it as an import. */
const FFPROBE_PACKAGE = '@ffprobe-installer/ffprobe';

/** The candidates, in order of preference (see the file's header). */
function candidates(env: NodeJS.ProcessEnv): string[] {
  const configured = env.DATASET_SYNC_FFPROBE;
  if (configured) return [configured];
  const list: string[] = [];
  try {
    // Optional dependency: absent on a platform it has no binary for, or when installed with --omit=optional.
    const installer = createRequire(import.meta.url)(FFPROBE_PACKAGE) as { path?: unknown };
    // In the packaged app the binary is unpacked beside the asar archive (package.json build.asarUnpack): a file inside it cannot be executed.
    if (typeof installer.path === 'string') list.push(installer.path.replace(/app\.asar([\\/])/, 'app.asar.unpacked$1'));
  } catch {
    // not installed
  }
  list.push('ffprobe');
  return list;
}

interface FfprobeJson {
  streams?: Array<{ codec_type?: string; codec_name?: string; width?: number; height?: number; r_frame_rate?: string }>;
  format?: { duration?: string };
}

/** ffprobe's JSON as the listing's `media` (the same fields the service's make-demo-media.ts reads). */
function parseProbe(stdout: string): ProbeOutcome {
  let out: FfprobeJson;
  try {
    out = JSON.parse(stdout) as FfprobeJson;
  } catch {
    return { kind: 'unreadable', detail: 'ffprobe gave no readable answer' };
  }
  const video = out.streams?.find((s) => s.codec_type === 'video');
  if (!video || !video.width || !video.height) return { kind: 'unreadable', detail: 'no video stream' };
  const [num, den] = (video.r_frame_rate ?? '0/1').split('/').map(Number) as [number, number];
  const fps = den ? num / den : num;
  const duration = Number(out.format?.duration);
  return {
    kind: 'probed',
    media: {
      width: video.width,
      height: video.height,
      fps: Number.isFinite(fps) ? Math.round(fps * 1000) / 1000 : 0,
      duration: Number.isFinite(duration) ? Math.round(duration * 1000) / 1000 : 0,
      codec: video.codec_name ?? '',
    },
  };
}

const ARGS = ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=codec_type,codec_name,width,height,r_frame_rate:format=duration', '-of', 'json'];

type Run = { ok: true; stdout: string } | { ok: false; started: boolean; detail: string };

function run(bin: string, args: readonly string[], signal: AbortSignal): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(bin, args, { timeout: PROBE_TIMEOUT_MS, maxBuffer: 1024 * 1024, signal, windowsHide: true }, (err, stdout, stderr) => {
      if (!err) return resolve({ ok: true, stdout });
      const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: string | number };
      // Not started (ENOENT, EACCES...) or killed (timeout, abort): the prober failed, not the file.
      if (typeof e.code === 'string' || e.killed) return resolve({ ok: false, started: false, detail: e.killed ? 'ffprobe timed out' : `${bin}: ${e.code}` });
      resolve({ ok: false, started: true, detail: String(stderr).trim().split('\n')[0] || `ffprobe exited with ${e.code}` });
    });
    try {
      // Lowest priority: on a busy machine the transfers (hashing, writing) keep the CPU before the probes.
      if (child.pid !== undefined) setPriority(child.pid, 19);
    } catch {
      // not permitted here (or the process already ended): it runs at normal priority
    }
  });
}

/** Probes files with the first ffprobe that starts; remembers which one (or that none does) for the run. */
export class Prober {
  private chosen: string | null | undefined;
  private readonly list: string[];

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.list = candidates(env);
  }

  /** False once every candidate failed to start (the caller then stops asking). */
  get available(): boolean {
    return this.chosen !== null;
  }

  /**
   * Whether a prober starts, asked once (`ffprobe -version`) when no probe has told yet: the media
   * stage asks before it probes files an earlier sync left unprobed, so a machine without one
   * pays one start per sync, not a failed probe per file.
   */
  async ready(signal: AbortSignal): Promise<boolean> {
    if (this.chosen !== undefined) return this.chosen !== null;
    const r = await this.runChosen(['-version'], signal);
    return r.ok || r.started;
  }

  async probe(file: string, signal: AbortSignal): Promise<ProbeOutcome> {
    const r = await this.runChosen([...ARGS, file], signal);
    if (r.ok) return parseProbe(r.stdout);
    if (r.started) return { kind: 'unreadable', detail: r.detail };
    return { kind: 'no_prober', detail: r.detail };
  }

  /**
   * Runs the chosen prober, or else each candidate until one starts (it is then the chosen one);
   * none starting makes the choice "none" for the run, unless the sync was cancelled meanwhile.
   */
  private async runChosen(args: readonly string[], signal: AbortSignal): Promise<Run> {
    const bins = this.chosen ? [this.chosen] : this.chosen === null ? [] : this.list;
    let last: Run = { ok: false, started: false, detail: 'no ffprobe found (PATH, @ffprobe-installer/ffprobe)' };
    for (const bin of bins) {
      last = await run(bin, args, signal);
      if (last.ok || last.started) {
        this.chosen = bin;
        return last;
      }
      if (signal.aborted) return last;
    }
    this.chosen = null;
    return last;
  }
}

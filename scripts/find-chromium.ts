// The one way tests and tooling (browser tests, scripts/make-icons.ts) get a Chromium:
// CHROMIUM_PATH, else a system Chromium/Chrome, else the headless Chromium shipped inside the
// npm package @sparticuz/chromium, so a machine with only Node and npm runs the browser tests
// too (`npm install && npm test`). Tests launch it through test/support/chromium.ts.
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';

const run = promisify(execFile);
const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));

export type ChromiumSource = 'CHROMIUM_PATH' | 'system' | 'npm-package';

export interface FoundChromium {
  executablePath: string;
  source: ChromiumSource;
  /** Extra launch arguments this build needs. */
  args: string[];
  /** Extra environment this build needs. */
  env: Record<string, string>;
}

export interface FindChromiumOptions {
  /** false skips CHROMIUM_PATH and the system lookup (only the finder's own test uses it). */
  system?: boolean;
}

/** Flags every test browser gets: headless, quiet, no calls home. */
const COMMON_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];

const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];
const SYSTEM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function systemChromium(): string | null {
  const onPath = (process.env.PATH ?? '').split(delimiter).filter(Boolean).flatMap((dir) => SYSTEM_NAMES.map((name) => join(dir, name)));
  return [...SYSTEM_PATHS, ...onPath].find(isExecutable) ?? null;
}

function npmChromiumVersion(): string {
  // The package exports no package.json: find it beside its resolved entry (build/cjs/index.cjs).
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  const manifest = JSON.parse(readFileSync(join(dirname(entry), '..', '..', 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

/**
 * Unpacks the npm-shipped Chromium once per machine and version. The package unpacks into
 * os.tmpdir() and trusts any file already there, so test files starting at the same time could
 * launch a half-written binary: each unpacks into its own staging folder (a child process with
 * TMPDIR pointed there) and renames it into place; the first rename wins, the others use it.
 */
async function npmChromium(): Promise<string> {
  // Per user: the unpacked folder is private (0700).
  const cache = join(tmpdir(), `dataset-sync-chromium-${npmChromiumVersion()}-${process.getuid?.() ?? 'user'}`);
  const executable = join(cache, 'chromium');
  if (existsSync(executable)) return executable;
  const staging = await mkdtemp(`${cache}.staging-`);
  try {
    const script = "const c = (await import('@sparticuz/chromium')).default; process.stdout.write(await c.executablePath());";
    await run(process.execPath, ['--input-type=module', '-e', script], { cwd: PROJECT_ROOT, env: { ...process.env, TMPDIR: staging }, timeout: 120_000 });
    if (!isExecutable(join(staging, 'chromium'))) throw new Error(`@sparticuz/chromium did not unpack a browser into ${staging}`);
    // The package's own fonts.conf names /tmp/fonts; this one adds its fonts where they ended up
    // to the system's, so pages (and screenshots) have text even on a machine without fonts.
    await writeFile(join(staging, 'fonts.conf'), `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n  <dir>${join(cache, 'fonts', 'fonts')}</dir>\n</fontconfig>\n`);
    await rename(staging, cache).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOTEMPTY' && e.code !== 'EEXIST') throw e; // another test file got there first
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return executable;
}

export async function findChromium(options: FindChromiumOptions = {}): Promise<FoundChromium> {
  if (options.system !== false) {
    const fromEnv = process.env.CHROMIUM_PATH;
    if (fromEnv) {
      if (!isExecutable(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} is not an executable file.`);
      return { executablePath: fromEnv, source: 'CHROMIUM_PATH', args: COMMON_ARGS, env: {} };
    }
    const system = systemChromium();
    if (system) return { executablePath: system, source: 'system', args: COMMON_ARGS, env: {} };
  }
  if (process.platform !== 'linux') throw new Error('No Chromium or Chrome found: install one or set CHROMIUM_PATH (the npm-shipped Chromium is for Linux only).');
  // The package's build is chrome-headless-shell for servers; it runs without the zygote
  // (its --single-process advice is for Lambda's prctl limits, not needed here).
  const executablePath = await npmChromium();
  return { executablePath, source: 'npm-package', args: [...COMMON_ARGS, '--no-zygote'], env: { FONTCONFIG_FILE: join(dirname(executablePath), 'fonts.conf') } };
}

/** A headless Chromium for a test (caller closes it). */
export async function launchChromium(options: FindChromiumOptions & Pick<LaunchOptions, 'timeout'> = {}): Promise<Browser> {
  const found = await findChromium(options);
  return chromium.launch({
    executablePath: found.executablePath,
    args: found.args,
    env: { ...process.env, ...found.env },
    headless: true,
    ...(options.timeout ? { timeout: options.timeout } : {}),
  });
}

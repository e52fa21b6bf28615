// The programs compared: our CLI, and curl / aria2c as peers. Config files that carry the
// (local demo) API key are written 0600 into a private work folder and removed right after,
// so the key never appears on a command line.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { createEventBatcher } from '../../src-main/app/event-batcher';
import type { SyncEvent, SyncSummary } from '../../src-shared/sync-events';
import { EventFile } from './event-file';
import { runGroup, runProc, type ProcResult } from './proc';
import { REPO_ROOT, type BenchFile, type BenchService } from './service';

export interface PeerRun {
  wallMs: number;
  ok: boolean;
  /** Peak RSS of the heaviest process of the run (kB). */
  maxRssKb?: number;
  cpuS?: number;
  /** Of cpuS, the kernel's (system) time. */
  sysS?: number;
  note?: string;
}

export interface OursRun extends PeerRun {
  summary?: SyncSummary;
  progressEvents: number;
  /** Messages the desktop app's event batcher (src-main/app/event-batcher.ts) would send over IPC; undefined when the events were only tallied. */
  batchMessages?: number;
  events: number;
  /**
   * Wall time from the first progress event of the `writing_manifest` phase (sent as the phase
   * begins) to the exit: the end of the sync (the check of the files it verified, the dataset
   * files, the state). Undefined when no such event came.
   */
  endOfSyncMs?: number;
}

function q(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

async function writePrivate(file: string, text: string): Promise<void> {
  await fs.writeFile(file, text, { mode: 0o600 });
}

function cpuOf(r: ProcResult): number | undefined {
  return r.userS === undefined ? undefined : r.userS + (r.sysS ?? 0);
}

function fromGroup(g: { wallMs: number; results: ProcResult[] }, note?: string): PeerRun {
  const rss = g.results.map((r) => r.maxRssKb ?? 0);
  const cpu = g.results.reduce((a, r) => a + (cpuOf(r) ?? 0), 0);
  const failed = g.results.find((r) => r.exitCode !== 0);
  return {
    wallMs: g.wallMs,
    ok: !failed,
    maxRssKb: Math.max(...rss),
    cpuS: cpu,
    note: failed ? `exit ${failed.exitCode}: ${failed.stderrTail.slice(-300)}` : note,
  };
}

/** Splits the files round-robin into `n` lists, like n independent download streams. */
function split<T>(items: T[], n: number): T[][] {
  const out: T[][] = Array.from({ length: n }, () => []);
  items.forEach((it, i) => out[i % n]!.push(it));
  return out.filter((l) => l.length > 0);
}

/**
 * `streams` curl processes, each with its own URL list (`-K` config with url/output lines), so
 * each keeps one connection alive across its files. No verification at all: the raw limit.
 * With `toNull`, bodies go to /dev/null (loopback + HTTP cost only, no disk).
 */
export async function runRawCurl(files: BenchFile[], dest: string, work: string, apiKey: string, streams: number, toNull = false, curlArgs: string[] = []): Promise<PeerRun> {
  const lists = split(files, streams);
  const cmds = [];
  for (const [i, list] of lists.entries()) {
    const cfg = path.join(work, `curl-${i}.cfg`);
    const lines = ['silent', 'show-error', 'fail', 'create-dirs', `header = ${q(`Authorization: Bearer ${apiKey}`)}`];
    for (const f of list) lines.push(`url = ${q(f.url)}`, `output = ${q(toNull ? '/dev/null' : path.join(dest, f.relPath))}`);
    await writePrivate(cfg, lines.join('\n') + '\n');
    cmds.push({ cmd: 'curl', args: [...curlArgs, '-K', cfg] });
  }
  try {
    return fromGroup(await runGroup(cmds));
  } finally {
    for (let i = 0; i < lists.length; i++) await fs.rm(path.join(work, `curl-${i}.cfg`), { force: true });
  }
}

/** One curl fetching everything in sequence, then `sha256sum -c` over the result. */
export async function runCurlThenSha(files: BenchFile[], dest: string, work: string, apiKey: string): Promise<PeerRun> {
  const started = performance.now();
  const dl = await runRawCurl(files, dest, work, apiKey, 1);
  if (!dl.ok) return dl;
  const sums = path.join(work, 'SHA256SUMS');
  await fs.writeFile(sums, files.map((f) => `${f.sha256}  ${f.relPath}`).join('\n') + '\n');
  const check = await runProc('sha256sum', ['-c', '--quiet', sums], { cwd: dest });
  await fs.rm(sums, { force: true });
  return {
    wallMs: performance.now() - started,
    ok: check.exitCode === 0,
    maxRssKb: Math.max(dl.maxRssKb ?? 0, check.maxRssKb ?? 0),
    cpuS: (dl.cpuS ?? 0) + (cpuOf(check) ?? 0),
    note: check.exitCode === 0 ? undefined : `sha256sum: ${check.stderrTail.slice(-300)}`,
  };
}

/** aria2c -j4 with a per-URL sha-256 checksum (aria2 verifies each file after download). */
export async function runAria2(files: BenchFile[], dest: string, work: string, apiKey: string, jobs: number): Promise<PeerRun> {
  const input = path.join(work, 'aria2-input.txt');
  const lines: string[] = [];
  for (const f of files) {
    lines.push(f.url, `  out=${f.relPath}`, `  checksum=sha-256=${f.sha256}`, `  header=Authorization: Bearer ${apiKey}`);
  }
  await writePrivate(input, lines.join('\n') + '\n');
  try {
    const r = await runProc('aria2c', [
      `-j${jobs}`,
      '--file-allocation=none',
      '--dir', dest,
      '-i', input,
      '--quiet=true',
      '--auto-file-renaming=false',
      '--allow-overwrite=true',
      '--max-tries=3',
    ]);
    return { wallMs: r.wallMs, ok: r.exitCode === 0, maxRssKb: r.maxRssKb, cpuS: cpuOf(r), note: r.exitCode === 0 ? undefined : `exit ${r.exitCode}` };
  } finally {
    await fs.rm(input, { force: true });
  }
}

export interface OursOptions {
  concurrency?: number;
  full?: boolean;
  /** Measured with GNU time (default); off when the caller needs the real pid (to kill it). */
  measure?: boolean;
  onSpawn?: (pid: number) => void;
  /** Extra environment, e.g. DATASET_SYNC_HASH_WORKERS: a run that turns a default off says so in its row's name. */
  env?: Record<string, string>;
  /** A command our CLI runs under, e.g. strace's (bench/lib/strace.ts): `[...launcher, node, bin/dataset-sync.mjs, ...]`. */
  launcher?: string[];
  /** Extra command-line arguments, e.g. --s3-endpoint for a bucket destination. */
  args?: string[];
  /**
   * 'parsed' (default): every event is read through a pipe and parsed as it arrives, and fed to
   * the desktop batcher (batchMessages). 'tallied': the events go to a file (event-file.ts), which
   * is only watched for the end phase's first progress event during the run; the lines are counted
   * and the progress and summary events parsed after the exit. At 100,000 sets a first sync
   * prints 1.4 million events: reading them live cost this process about 1 s of CPU per 10,000
   * sets, on the same two cores as the run it measures.
   */
  events?: 'parsed' | 'tallied';
}

/** Lines the tallied events parse: the few progress events and the summary (every event line starts with its type). */
const PARSED_PREFIXES = [Buffer.from('{"type":"progress"'), Buffer.from('{"type":"summary"')];

function parsedLine(line: Buffer): boolean {
  return PARSED_PREFIXES.some((p) => line.length >= p.length && line.compare(p, 0, p.length, 0, p.length) === 0);
}

/**
 * The engine settings this bench's own environment holds (DATASET_SYNC_*, the API key aside).
 * Our runs drop them: a knob left in the shell (DATASET_SYNC_MEDIA_CHECK=off from a test session,
 * say) would otherwise turn a default off in every row without any row saying so. A run that
 * wants one names it in OursOptions.env, and its row's name says so.
 */
export function inheritedEngineSettings(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.keys(env).filter((k) => k.startsWith('DATASET_SYNC_') && k !== 'DATASET_SYNC_API_KEY');
}

/** This process's environment without its engine settings, plus the run's own and the key. */
function oursEnv(extra: Record<string, string> | undefined, apiKey: string): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of inheritedEngineSettings()) delete env[k];
  return { ...env, ...extra, DATASET_SYNC_API_KEY: apiKey };
}

/** Our CLI exactly as users run it (`node bin/dataset-sync.mjs sync ... --json`), with the product's defaults unless `o.env` says otherwise. */
export async function runOurs(svc: BenchService, dest: string, o: OursOptions = {}): Promise<OursRun> {
  let summary: SyncSummary | undefined;
  let progressEvents = 0;
  let events = 0;
  let batchMessages = 0;
  const batcher = createEventBatcher(() => batchMessages++);
  let endPhaseAt: number | undefined;
  const args = [
    path.join(REPO_ROOT, 'bin/dataset-sync.mjs'),
    'sync',
    '--base-url', svc.deliveryBaseUrl,
    '--collection', String(svc.collectionId),
    '--dest', dest,
    '--concurrency', String(o.concurrency ?? 4),
    '--json',
  ];
  if (o.full) args.push('--full');
  if (o.args) args.push(...o.args);
  const onEvent = (e: SyncEvent) => {
    if (e.type === 'progress') progressEvents++;
    // Tallied after the exit, the end phase's start comes from the event file's watch instead.
    if (e.type === 'progress' && e.phase === 'writing_manifest' && !eventFile) endPhaseAt ??= performance.now();
    if (e.type === 'summary') summary = e.summary;
  };
  const parse = (line: string): SyncEvent | undefined => {
    try {
      return JSON.parse(line) as SyncEvent;
    } catch {
      return undefined;
    }
  };
  const eventFile = o.events === 'tallied' ? await EventFile.create() : undefined;
  const stopWatching = eventFile?.watch('"phase":"writing_manifest"', (at) => (endPhaseAt ??= at));
  let r: ProcResult;
  try {
    const [cmd = process.execPath, ...argv] = [...(o.launcher ?? []), process.execPath, ...args];
    r = await runProc(cmd, argv, {
      env: oursEnv(o.env, svc.apiKey),
      measure: o.measure ?? true,
      onSpawn: o.onSpawn,
      stdoutFd: eventFile?.fd,
      onStdoutLine: (line) => {
        const e = parse(line);
        if (!e) return;
        events++;
        onEvent(e);
        batcher.push(e);
      },
    });
  } finally {
    stopWatching?.();
  }
  const exitedAt = performance.now();
  if (eventFile) {
    try {
      for await (const line of eventFile.lines()) {
        events++;
        if (!parsedLine(line)) continue;
        const e = parse(line.toString('utf8'));
        if (e) onEvent(e);
      }
    } finally {
      await eventFile.remove();
    }
  }
  batcher.flush();
  const ok = r.exitCode === 0 && summary?.exitCode === 0;
  return {
    wallMs: r.wallMs,
    ok,
    maxRssKb: r.maxRssKb,
    cpuS: cpuOf(r),
    sysS: r.sysS,
    summary,
    progressEvents,
    batchMessages: eventFile ? undefined : batchMessages,
    events,
    endOfSyncMs: endPhaseAt === undefined ? undefined : exitedAt - endPhaseAt,
    note: ok ? undefined : `exit ${r.exitCode ?? r.signal}: ${summary?.fatal?.message ?? r.stderrTail.slice(-300)}`,
  };
}

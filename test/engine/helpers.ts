// Shared helpers of the engine and CLI tests: a real reference service on loopback, temp
// folders, and a recording runSync.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startReferenceService } from '../../src-service/index';
import { runSync } from '../../src-main/sync/engine';
import type { SyncEvent, SyncOptions, SyncSummary } from '../../src-shared/sync-events';

export type Service = Awaited<ReturnType<typeof startReferenceService>>;

export const FAST_TUNING = { retryBaseMs: 20, maxAttempts: 6, stallTimeoutMs: 1500, progressIntervalMs: 100 };

export async function tempDir(prefix = 'dsync-'): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix));
}

export async function startService(opts: { sets?: number; fileSize?: number; slots?: number; seed?: number } = {}): Promise<{ svc: Service; root: string }> {
  const root = await tempDir('dsync-svc-');
  const svc = await startReferenceService({
    dataDir: path.join(root, 'service'),
    seed: opts.seed ?? 7,
    sets: opts.sets ?? 6,
    // No size: the real demo videos (4-57 KB each); a size gives synthetic bodies of that size.
    fileSize: opts.fileSize,
    slots: opts.slots ?? 3,
  });
  return { svc, root };
}

/**
 * A reference service for the enclosing describe block (or file): started before its tests,
 * faults cleared after each test, closed and its data removed at the end. Read the fields inside
 * tests and hooks only (they are set by beforeAll).
 */
export function useService(opts: Parameters<typeof startService>[0] = {}): { svc: Service; collectionId: number } {
  const ctx = {} as { svc: Service; collectionId: number; root?: string };
  beforeAll(async () => {
    const started = await startService(opts);
    Object.assign(ctx, started, { collectionId: mainCollection(started.svc).collectionId });
  }, 120_000); // generating a large demo collection (the crash loop's 156 MiB) may take a while on a slow machine
  afterEach(async () => {
    await ctx.svc?.admin.clearFaults();
  });
  afterAll(async () => {
    await ctx.svc?.close();
    if (ctx.root) await fs.rm(ctx.root, { recursive: true, force: true });
  });
  return ctx;
}

/**
 * A dataset folder (`<temp>/ds`) synced once from `env`'s service before the describe's tests
 * (exit 0 asserted) and removed with its temp folder after them; `dest` is set once synced.
 */
export function useSyncedDataset(env: { svc: Service }, prefix: string): { dest: string } {
  const ctx = { dest: '' };
  beforeAll(async () => {
    ctx.dest = path.join(await tempDir(prefix), 'ds');
    expect((await sync(env.svc, ctx.dest)).summary.exitCode).toBe(0);
  });
  afterAll(async () => {
    if (ctx.dest) await fs.rm(path.dirname(ctx.dest), { recursive: true, force: true });
  });
  return ctx;
}

export function mainCollection(svc: Service): { apiKey: string; collectionId: number } {
  const client = svc.clients[0]!;
  return { apiKey: client.apiKey, collectionId: client.collections[0]! };
}

export async function sync(
  svc: Service,
  dest: string,
  extra: Partial<SyncOptions> = {},
  /** Sees each event as it comes (the result lists them all at the end). */
  onEvent?: (e: SyncEvent) => void,
): Promise<{ summary: SyncSummary; events: SyncEvent[] }> {
  const events: SyncEvent[] = [];
  const { apiKey, collectionId } = mainCollection(svc);
  const summary = await runSync({ baseUrl: svc.deliveryBaseUrl, apiKey, collectionId, dest, tuning: FAST_TUNING, ...extra }, (e) => {
    events.push(e);
    onEvent?.(e);
  });
  return { summary, events };
}

export function sha256Of(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Every file under `dir`, relative, with forward slashes. */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(d: string, rel: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(path.join(d, e.name), r);
      else out.push(r);
    }
  }
  await walk(dir, '');
  return out.sort();
}

/**
 * manifest.csv's rows as column -> cell, each cell as written (a quoted cell keeps its quotes; a
 * comma inside quotes does not split it).
 */
export async function manifestRows(dest: string): Promise<Array<Record<string, string>>> {
  const [header, ...lines] = (await fs.readFile(path.join(dest, 'manifest.csv'), 'utf8')).trim().split(/\r?\n/);
  const cols = header!.split(',');
  const outsideQuotes = /,(?=(?:[^"]*"[^"]*")*[^"]*$)/;
  return lines.filter((l) => l !== '').map((l) => Object.fromEntries(l.split(outsideQuotes).map((v, i) => [cols[i], v])));
}

/** The accepted sets the service serves for the main collection, with their files. */
export async function servedSets(svc: Service, collectionId: number) {
  const state = await svc.admin.state();
  const c = state.collections.find((x) => x.id === collectionId);
  if (!c) throw new Error(`collection ${collectionId} not in admin state`);
  return c.accepted_sets;
}

/** Asserts DEST holds exactly the served files, each matching its sha256, and nothing unverified under a final name. */
export async function expectDatasetMatches(svc: Service, dest: string, collectionId: number, opts: { excludeGold?: boolean } = {}): Promise<void> {
  const sets = await servedSets(svc, collectionId);
  const expected = new Map<string, string>();
  for (const s of sets) {
    if (opts.excludeGold && s.is_gold) continue;
    for (const f of s.files) expected.set(`sets/${s.id}/${f.filename}`, f.sha256);
  }
  const present = (await listFiles(path.join(dest, 'sets'))).filter((f) => !f.endsWith('/set.json')).map((f) => `sets/${f}`);
  for (const p of present) {
    const want = expected.get(p);
    if (want === undefined) continue; // files of sets that left accepted are kept by design
    if (sha256Of(path.join(dest, p)) !== want) throw new Error(`${p} does not match its sha256`);
  }
  for (const p of expected.keys()) if (!present.includes(p)) throw new Error(`${p} is missing`);
}

export function sha256sumCheck(dest: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('sha256sum', ['--strict', '-c', 'SHA256SUMS'], { cwd: dest }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

export const CLI = fileURLToPath(new URL('../../bin/dataset-sync.mjs', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI as a child process (async, so the in-process service keeps answering). */
export function runCli(args: string[], opts: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, DATASET_SYNC_RETRY_BASE_MS: '20', DATASET_SYNC_MAX_ATTEMPTS: '3', ...opts.env };
    for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
    const child = spawn(process.execPath, [CLI, ...args], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 45_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

export function parseNdjson(text: string): SyncEvent[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as SyncEvent);
}

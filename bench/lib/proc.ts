// Spawning measured processes: wall time from our side, CPU and peak RSS from GNU time -v
// (written to a side file so the program's own stderr stays untouched).
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

export interface ProcResult {
  wallMs: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** From GNU time -v; undefined when not measured. */
  maxRssKb?: number;
  userS?: number;
  sysS?: number;
  stderrTail: string;
}

export interface ProcOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Called per stdout line as it arrives (NDJSON events). */
  onStdoutLine?: (line: string) => void;
  /**
   * The child's stdout goes straight to this open file instead of a pipe to us (onStdoutLine is
   * then not called): reading a pipe of many small writes cost this process about 0.9 s of CPU
   * per 18 MB, on the cores the measured run uses.
   */
  stdoutFd?: number;
  /** Wrap in /usr/bin/time -v for CPU and peak RSS. Default true. */
  measure?: boolean;
  /** Called with the child's pid once spawned (the measured program's own pid when measure is false). */
  onSpawn?: (pid: number) => void;
}

const TIME_BIN = '/usr/bin/time';

function parseGnuTime(text: string): Pick<ProcResult, 'maxRssKb' | 'userS' | 'sysS'> {
  const num = (re: RegExp) => {
    const m = re.exec(text);
    return m ? Number(m[1]) : undefined;
  };
  return {
    maxRssKb: num(/Maximum resident set size \(kbytes\): (\d+)/),
    userS: num(/User time \(seconds\): ([\d.]+)/),
    sysS: num(/System time \(seconds\): ([\d.]+)/),
  };
}

export async function runProc(cmd: string, args: string[], opts: ProcOptions = {}): Promise<ProcResult> {
  const measure = opts.measure ?? true;
  const timeFile = path.join(os.tmpdir(), `bench-time-${process.pid}-${Math.random().toString(36).slice(2)}.txt`);
  const [bin, argv] = measure ? [TIME_BIN, ['-v', '-o', timeFile, cmd, ...args]] : [cmd, args];
  const started = performance.now();
  const child = spawn(bin, argv, { env: opts.env ?? process.env, cwd: opts.cwd, stdio: ['ignore', opts.stdoutFd ?? 'pipe', 'pipe'] });
  if (child.pid !== undefined) opts.onSpawn?.(child.pid);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (s: string) => {
    stderr = (stderr + s).slice(-4000);
  });
  if (child.stdout) {
    const lines = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => opts.onStdoutLine?.(line));
  }
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, sig) => resolve([code, sig]));
  });
  const wallMs = performance.now() - started;
  let measured = {};
  if (measure) {
    const text = await fs.readFile(timeFile, 'utf8').catch(() => '');
    await fs.rm(timeFile, { force: true });
    measured = parseGnuTime(text);
    // GNU time reports the child's death by signal as "Command terminated by signal N" and exits 128+N.
  }
  return { wallMs, exitCode, signal, stderrTail: stderr, ...measured };
}

/** Runs several processes at once; wall time covers the whole group. */
export async function runGroup(cmds: Array<{ cmd: string; args: string[] }>, opts: ProcOptions = {}): Promise<{ wallMs: number; results: ProcResult[] }> {
  const started = performance.now();
  const results = await Promise.all(cmds.map((c) => runProc(c.cmd, c.args, opts)));
  return { wallMs: performance.now() - started, results };
}

/** `sync(1)`: flushes dirty pages of the previous run so it does not slow down the next one (untimed). */
export async function flushDisk(): Promise<void> {
  await runProc('sync', [], { measure: false });
}

/** ext4 keeps an inode number from reuse for a minute after its file was deleted, as long as its inode table block is cached. */
const RECENTLY_DELETED_MS = 61_000;

/**
 * Puts the file system in the same state for every tool that creates many files (untimed):
 * on ext4 without a journal (these machines' root file system: no jbd2 thread), creating a file
 * scans past every inode deleted in the last minute whose table block is still cached
 * (`recently_deleted()` in fs/ext4/ialloc.c). A tool that runs right after a bench deleted
 * 100,000s of files pays for that: in a profile of our first sync of 40,000 files just after the
 * previous copy was deleted, 31 % of all CPU samples were in that scan, and its sys time was 29 s
 * against 11 s after the caches were dropped. `sync`, then dropping the clean caches (root only)
 * ends it for the blocks no longer cached; otherwise the wait outlasts the minute. A tool's own
 * new inodes cache and dirty those blocks again, and a dirty block's deleted inodes are skipped
 * for 360 s, so after deleting a large copy this is not enough: scenarios/scale.ts keeps its
 * copies until its end instead (ToolCopies). Returns how it was done, for the notes.
 */
export async function settleFileSystem(): Promise<'dropped caches' | 'waited' | 'synced'> {
  await flushDisk();
  try {
    await fs.writeFile('/proc/sys/vm/drop_caches', '3\n');
    return 'dropped caches';
  } catch {
    if (process.env.BENCH_NO_SETTLE_WAIT === '1') return 'synced';
    await new Promise((r) => setTimeout(r, RECENTLY_DELETED_MS));
    return 'waited';
  }
}

/**
 * CPU seconds (user + system) a running process has used so far, from /proc/PID/stat (Linux);
 * NaN elsewhere or once it has exited. The fields count clock ticks of USER_HZ, which is 100 on
 * every Linux architecture this bench runs on (sysconf(_SC_CLK_TCK)).
 */
export async function processCpuSeconds(pid: number): Promise<number> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (stat === null) return NaN;
  // The command name (field 2) may hold spaces and parentheses: the fields after it start past the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime and stime, fields 14 and 15 of the line
}

/**
 * Seconds of this machine's CPUs, all of them together, that the hypervisor gave to other guests
 * so far (the steal column of the `cpu` line of /proc/stat, in USER_HZ ticks as above); NaN where
 * there is no such line. On a shared VM it swung a 10,000-set first sync between 25 s and 64 s within
 * an hour (bench/NOTES.md, 2026-12-03), so each scale run shows what it lost to it.
 */
export async function machineStealSeconds(): Promise<number> {
  const stat = await fs.readFile('/proc/stat', 'utf8').catch(() => null);
  return stat === null ? NaN : stealSecondsOf(stat);
}

/** The steal seconds of a /proc/stat text (machineStealSeconds); NaN without a `cpu` line or its steal column (kernels before 2.6.11). */
export function stealSecondsOf(stat: string): number {
  const cpu = stat.split('\n').find((line) => line.startsWith('cpu '));
  if (cpu === undefined) return NaN;
  // cpu user nice system idle iowait irq softirq steal ...
  const steal = cpu.trim().split(/\s+/)[8];
  return steal === undefined ? NaN : Number(steal) / 100;
}

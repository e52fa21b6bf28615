// Counting the processes a run starts, from strace (issue point 7: the media check starts no
// child process per file). Our CLI runs under `strace -f` tracing only the calls that start a
// program or a task; execve calls and process-creating clones are counted apart from threads
// (a clone with CLONE_THREAD), which Node, libuv's pool and the engine's workers start by design.
// The first successful execve is our CLI's own start (strace runs node); anything after it is a
// child. Not a timing: the traced run is extra and untimed.
import { spawnSync } from 'node:child_process';
import type { TargetCheck } from './context';
import { fmt } from './stats';

const TRACED = 'execve,execveat,clone,clone3,fork,vfork';

/**
 * The command prefix that runs a program under strace, writing the trace to `outFile`. With
 * --seccomp-bpf the kernel stops the program only at the traced calls (strace otherwise stops
 * it at every system call, which would slow a sync of thousands of files many times over).
 */
export function straceLauncher(outFile: string): string[] {
  return ['strace', '-f', '--seccomp-bpf', '-e', `trace=${TRACED}`, '-o', outFile, '--'];
}

/** Why strace cannot trace here (not installed, or ptrace refused in this container), or undefined when it can. */
export function straceMissing(): string | undefined {
  const r = spawnSync('strace', ['-f', '-o', '/dev/null', '--', 'true'], { encoding: 'utf8' });
  if (r.error) return 'strace is not installed (apt-get install strace)';
  return r.status === 0 ? undefined : `strace cannot trace here: ${(r.stderr ?? '').trim().split('\n')[0] ?? `exit ${r.status}`}`;
}

export interface ProcessCounts {
  /** execve/execveat calls that succeeded: programs started (the first is the traced program itself). */
  execs: number;
  /** Of them, by program path. */
  programs: Record<string, number>;
  /** execve calls that failed (a PATH search tries each folder): no program started. */
  failedExecs: number;
  /** clone/clone3/fork/vfork without CLONE_THREAD that returned a pid: new processes. */
  processes: number;
  /** clones with CLONE_THREAD: new threads of a running process. */
  threads: number;
}

const START = /^(\d+)\s+(execve|execveat|clone3|clone|fork|vfork)\((.*)$/;
const RESUMED = /^(\d+)\s+<\.\.\. (\w+) resumed>(.*)$/;
const RETURN = /\)\s+=\s+(-?\d+)(?:\s|$)/g;

/**
 * Counts a `strace -f` trace (one line per call, each prefixed by its pid). A call that another
 * task interrupted is split over an `<unfinished ...>` line and a `<... NAME resumed>` line of
 * the same pid; the two are joined before the call is counted. Signal and exit lines are skipped.
 */
export function countProcessCreation(trace: string): ProcessCounts {
  const counts: ProcessCounts = { execs: 0, programs: {}, failedExecs: 0, processes: 0, threads: 0 };
  const pending = new Map<string, { name: string; text: string }>();
  const count = (name: string, text: string) => {
    const returns = [...text.matchAll(RETURN)];
    const ret = returns.length > 0 ? Number(returns.at(-1)![1]) : NaN;
    if (name === 'execve' || name === 'execveat') {
      if (ret !== 0) {
        counts.failedExecs++;
        return;
      }
      counts.execs++;
      // execveat(dirfd, "path", ...): the path is the first quoted argument either way.
      const program = /"([^"]*)"/.exec(text)?.[1] ?? '?';
      counts.programs[program] = (counts.programs[program] ?? 0) + 1;
      return;
    }
    if (!(ret > 0)) return; // a clone that failed started nothing
    if (/\bCLONE_THREAD\b/.test(text)) counts.threads++;
    else counts.processes++;
  };
  for (const line of trace.split('\n')) {
    const resumed = RESUMED.exec(line);
    if (resumed) {
      const [, pid, name, rest] = resumed as unknown as [string, string, string, string];
      const start = pending.get(pid);
      pending.delete(pid);
      count(name, `${start?.name === name ? start.text : ''} ${rest}`);
      continue;
    }
    const started = START.exec(line);
    if (!started) continue;
    const [, pid, name, rest] = started as unknown as [string, string, string, string];
    if (rest.endsWith('<unfinished ...>')) pending.set(pid, { name, text: rest.slice(0, -'<unfinished ...>'.length) });
    else count(name, rest);
  }
  return counts;
}

/** Programs and processes started after the traced program's own start. */
export function childProcesses(c: ProcessCounts): number {
  return Math.max(c.processes, c.execs - 1);
}

/** One line for a scenario's text. */
export function processCountLine(c: ProcessCounts, files: number): string {
  const programs = Object.entries(c.programs)
    .sort((a, b) => b[1] - a[1])
    .map(([p, n]) => `${p} x${n}`)
    .join(', ');
  return `Processes of one of our syncs of the ${files} files under \`strace -f --seccomp-bpf -e trace=${TRACED}\` (bench/lib/strace.ts; an extra, untimed run): ${c.execs} program start(s) (${programs || 'none'}; the first is our CLI's own start), ${c.failedExecs} failed execve (PATH lookups), ${c.processes} process-creating clone/fork call(s), ${c.threads} thread(s) (clone with CLONE_THREAD: Node's, libuv's and the engine's workers, counted apart).`;
}

/** Met when the children started are far below one per file: at most 1 % of the files (ideally none). */
export function processCountTarget(scenario: string, c: ProcessCounts, files: number): TargetCheck {
  const children = childProcesses(c);
  return {
    name: `${scenario} no child process per file (strace, one sync)`,
    measured: `${children} child process(es) for ${files} files (${fmt((children / Math.max(1, files)) * 100, 1)} per 100 files)`,
    target: '<= 1 per 100 files (ideally 0 beyond the CLI\'s own start)',
    met: children <= files * 0.01,
  };
}

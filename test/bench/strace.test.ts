// The bench's count of the processes a sync starts (bench/lib/strace.ts): the "no child process
// per file" row of the media check rests on it, so threads must not count as children, a PATH
// search's failed execve calls must not count as programs, and a call split by another task
// (`<unfinished ...>` / `<... resumed>`) must count once, with the flags of its first half.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { childProcesses, countProcessCreation, straceLauncher, straceMissing } from '../../bench/lib/strace';

const THREAD_FLAGS = 'CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID';

const TRACE = [
  '30173 execve("/usr/bin/node", ["node", "bin/dataset-sync.mjs"], 0x7ffe4ee7e2a8 /* 35 vars */) = 0',
  `30173 clone3({flags=${THREAD_FLAGS}, child_tid=0x7f97e2d1d990, exit_signal=0, stack=0x7f97e251d000, stack_size=0x7ffe80} => {parent_tid=[30174]}, 88) = 30174`,
  `30173 clone3({flags=${THREAD_FLAGS}, child_tid=0x7f97e251c990} <unfinished ...>`,
  '30174 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f97e322df50) = 30180',
  '30173 <... clone3 resumed> => {parent_tid=[30175]}, 88) = 30175',
  '30180 execve("/root/.cargo/bin/ffprobe", ["ffprobe", "-v", "error"], 0x1ce2bfe0 /* 35 vars */) = -1 ENOENT (No such file or directory)',
  '30180 execve("/usr/bin/ffprobe", ["ffprobe", "-v", "error"], 0x1ce2bfe0 /* 35 vars */ <unfinished ...>',
  '30173 clone3({flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD, stack=0x7f, stack_size=0x9000}, 88) = -1 EAGAIN (Resource temporarily unavailable)',
  '30180 <... execve resumed>) = 0',
  '30180 +++ exited with 0 +++',
  '30173 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=30180, si_status=0} ---',
  '',
].join('\n');

describe('counting a strace -f trace', () => {
  it('counts programs, failed execs, processes and threads apart, joining split calls', () => {
    const c = countProcessCreation(TRACE);
    expect(c).toEqual({ execs: 2, programs: { '/usr/bin/node': 1, '/usr/bin/ffprobe': 1 }, failedExecs: 1, processes: 1, threads: 2 });
    // The traced program's own start is not a child; the ffprobe is.
    expect(childProcesses(c)).toBe(1);
  });

  it('finds no child in a trace of threads only', () => {
    const threadsOnly = TRACE.split('\n').filter((l) => l.startsWith('30173 execve') || l.includes('CLONE_THREAD') || l.includes('clone3 resumed'));
    const c = countProcessCreation(threadsOnly.join('\n'));
    expect(c).toMatchObject({ execs: 1, processes: 0, threads: 2 });
    expect(childProcesses(c)).toBe(0);
  });

  const missing = straceMissing();
  it.skipIf(missing !== undefined)(`traces a real program that starts one child (${missing ?? 'strace present'})`, async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-strace-'));
    try {
      const out = path.join(dir, 'trace.txt');
      const [cmd = 'strace', ...args] = [...straceLauncher(out), process.execPath, '-e', "require('node:child_process').spawnSync('true')"];
      expect(spawnSync(cmd, args).status).toBe(0);
      const c = countProcessCreation(await fs.readFile(out, 'utf8'));
      expect(c.programs[process.execPath] ?? c.programs[await fs.realpath(process.execPath)]).toBe(1);
      expect(childProcesses(c)).toBe(1);
      expect(c.threads).toBeGreaterThan(0);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

// What creating a small file costs the file system right now, for the scale scenario's notes
// and its wait for a quiet disk. On these machines' root file system (ext4 without a journal,
// mounted with `discard`) that cost is not a constant: after a deletion of millions of files it
// stays up to ten times dearer for minutes (fs/ext4/ialloc.c recently_deleted(): the allocator
// passes over every inode freed lately). Measured by hand, 2026-12-01: 25-37 us a file on a quiet
// disk; 419 us right after `rm -rf` of about 4 million inodes had ended (itself 7 minutes), then 217,
// 234, 126, 100, 51 and 27 us a minute apart (bench/NOTES.md). A first sync of a million files
// makes 1.75 million inodes, so that is minutes of a tool's time, and the notes must show it.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** Files a probe creates: 4 to a folder, as a set's files are. */
const PROBE_FILES = 4000;
const PER_FOLDER = 4;

export interface CreationCost {
  /** Wall time per file created (mkdir of its folder included), in microseconds. */
  usPerFile: number;
  /** Of it, the kernel's time (this process's system CPU), in microseconds. */
  sysUsPerFile: number;
}

/**
 * Creates PROBE_FILES files of 1 KiB under `dir` (which must not exist), with synchronous calls so
 * that nothing else of this process runs meanwhile, and keeps them: deleting them would itself
 * leave freed inodes for the next tool to pass over. The caller removes `dir` with the copies.
 */
export function probeFileCreation(dir: string): CreationCost {
  mkdirSync(dir);
  const body = Buffer.alloc(1024, 0x5a);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < PROBE_FILES; i++) {
    const folder = path.join(dir, String(Math.floor(i / PER_FOLDER)));
    if (i % PER_FOLDER === 0) mkdirSync(folder);
    const fd = openSync(path.join(folder, `${i}.bin`), 'wx');
    try {
      writeSync(fd, body);
    } finally {
      closeSync(fd);
    }
  }
  const wallUs = (performance.now() - t0) * 1000;
  const cpu = process.cpuUsage(cpu0);
  return { usPerFile: wallUs / PROBE_FILES, sysUsPerFile: cpu.system / PROBE_FILES };
}

export interface QuietWait {
  /** The probes' costs in order (us per file, wall). */
  probes: number[];
  waitedMs: number;
  /** False when the wait gave up at its limit with the cost still moving. */
  settled: boolean;
}

/**
 * Probes every `everyMs` until the last `steady` probes lie within `spread` of each other (a
 * deletion's tail falls by halves a minute apart; a quiet disk repeats itself), or `limitMs` has
 * passed. Each probe gets a folder of its own under `work` (creation-probe-N), kept like the copies.
 */
export async function waitForQuietFileSystem(
  work: string,
  log: (line: string) => void,
  { everyMs = 30_000, limitMs = 15 * 60_000, steady = 3, spread = 0.25 } = {},
): Promise<QuietWait> {
  const probes: number[] = [];
  const t0 = performance.now();
  for (;;) {
    const cost = probeFileCreation(nextProbeDir(work));
    probes.push(cost.usPerFile);
    const last = probes.slice(-steady);
    const settled = last.length === steady && Math.max(...last) <= Math.min(...last) * (1 + spread);
    const waitedMs = performance.now() - t0;
    log(`  file creation: ${cost.usPerFile.toFixed(0)} us a file (system ${cost.sysUsPerFile.toFixed(0)} us)${settled ? ', steady' : ''}`);
    if (settled || waitedMs + everyMs > limitMs) return { probes, waitedMs, settled };
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

let probeCounter = 0;

/** The next probe folder's path under `work` (probeFileCreation's mkdir refuses one that exists). */
export function nextProbeDir(work: string): string {
  return path.join(work, `creation-probe-${++probeCounter}`);
}

/** Removes every probe folder made under `work`. */
export async function removeProbes(work: string): Promise<void> {
  for (const name of await fs.readdir(work).catch(() => [] as string[])) {
    if (name.startsWith('creation-probe-')) await fs.rm(path.join(work, name), { recursive: true, force: true });
  }
}

// One sync per DEST: DEST/.dataset-sync/lock holds pid, host, start time and a random nonce. A
// lock left by a dead process on this host is taken over at once (a sync killed with SIGKILL
// never blocks the next one); anything else is reported with its owner.
//
// Taking over a stale lock is atomic: several syncs may find the same dead lock at once, and a
// plain "remove it, then create mine" lets a slow one remove the lock a faster one just made
// (both then sync). proper-lockfile 4.1.2 has that very race in its stale reclaim (rmdir, then
// mkdir: moxystudio/node-proper-lockfile#121) and knows staleness only by an mtime some seconds
// old, so it does not fit. Here a takeover is serialised by a guard file created with O_EXCL
// whose name is derived from the stale lock (its inode); the guard's holder re-reads the lock,
// and only if it still holds the very bytes judged stale replaces it by rename. A guard whose
// holder died mid-takeover is skipped by creating the next generation of guard, never removed
// and re-created (that would reopen the race).
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stateDir } from '../../layout';
import { DestinationError } from '../destination';

/** The lock is another sync's: DestinationError 'locked' (exit 2), naming its holder. */
export class LockHeldError extends DestinationError {
  constructor(message: string) {
    super('locked', message);
    this.name = 'LockHeldError';
  }
}

interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
  nonce?: string;
}

/** Whether a process with this pid runs on this host (EPERM: it exists but is not ours). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface Lock {
  release(): Promise<void>;
}

/** An unreadable lock (or guard) this old was not being written: its writer is gone. */
const UNREADABLE_STALE_MS = 10_000;
/** Generations of takeover guard tried before giving up (each needs a taker that died mid-takeover). */
const MAX_GUARDS = 16;

type Seen = { bytes: Buffer; ino: number; mtimeMs: number };

function isCode(e: unknown, code: string): boolean {
  return (e as NodeJS.ErrnoException)?.code === code;
}

function parseInfo(bytes: Buffer): Partial<LockInfo> | null {
  try {
    const v = JSON.parse(bytes.toString('utf8')) as unknown;
    return v !== null && typeof v === 'object' ? (v as Partial<LockInfo>) : null;
  } catch {
    return null;
  }
}

/** The lock as it is now; null when there is none. */
async function readLock(file: string): Promise<Seen | null> {
  try {
    const h = await fs.open(file, 'r');
    try {
      const st = await h.stat();
      return { bytes: await h.readFile(), ino: st.ino, mtimeMs: st.mtimeMs };
    } finally {
      await h.close();
    }
  } catch (e) {
    if (isCode(e, 'ENOENT')) return null;
    throw e;
  }
}

/** A file with exactly `bytes`, written aside first so no reader ever sees it half-written. */
async function writeAside(file: string, bytes: string): Promise<string> {
  const tmp = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  await fs.writeFile(tmp, bytes, { flag: 'wx' });
  return tmp;
}

export async function acquireLock(dest: string): Promise<Lock> {
  const file = path.join(stateDir(dest), 'lock');
  const mine: LockInfo = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString(), nonce: randomBytes(8).toString('hex') };
  const content = JSON.stringify(mine) + '\n';
  const lock: Lock = {
    async release() {
      // Only our own lock is removed (never one that replaced it).
      const now = await readLock(file).catch(() => null);
      if (now && now.bytes.toString('utf8') === content) await fs.rm(file, { force: true });
    },
  };
  for (let round = 0; round < 3; round++) {
    if (await createExclusive(file, content)) return lock;
    const seen = await readLock(file);
    if (seen === null) continue; // released meanwhile: try again
    const info = parseInfo(seen.bytes);
    if (!isStale(info, seen)) throw heldError(dest, file, info);
    if (await takeOver(file, seen, content)) return lock;
    // Someone else took it over (or is doing so right now): it is theirs.
    const now = await readLock(file);
    if (now !== null && now.bytes.equals(seen.bytes)) {
      throw new LockHeldError(`Another sync is taking over the stale lock ${file} (left by pid ${info?.pid ?? '?'}) in ${dest}.`);
    }
    if (now !== null) throw heldError(dest, file, parseInfo(now.bytes));
  }
  throw new LockHeldError(`Could not take the lock ${file}.`);
}

/** Creates the lock if the name is free; false when it exists. */
async function createExclusive(file: string, content: string): Promise<boolean> {
  // link() makes the name only if it is free, and the file behind it is already whole.
  const tmp = await writeAside(file, content);
  try {
    await fs.link(tmp, file);
    return true;
  } catch (e) {
    if (isCode(e, 'EEXIST')) return false;
    // No hard links on this file system (exFAT, some network shares): an O_EXCL create is as atomic,
    // only a reader may briefly find it empty (treated as "being written").
    if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'].includes((e as NodeJS.ErrnoException).code ?? '')) throw e;
  } finally {
    await fs.rm(tmp, { force: true });
  }
  try {
    await fs.writeFile(file, content, { flag: 'wx' });
    return true;
  } catch (e) {
    if (isCode(e, 'EEXIST')) return false;
    throw e;
  }
}

function isStale(info: Partial<LockInfo> | null, seen: Seen): boolean {
  if (info === null) return Date.now() - seen.mtimeMs > UNREADABLE_STALE_MS;
  return info.host === os.hostname() && typeof info.pid === 'number' && !processAlive(info.pid);
}

function heldError(dest: string, file: string, info: Partial<LockInfo> | null): LockHeldError {
  if (info === null) return new LockHeldError(`Another sync appears to be starting in ${dest} (lock file ${file} is being written).`);
  return new LockHeldError(
    `Another sync is already running for ${dest}: pid ${info.pid ?? '?'} on host ${info.host ?? '?'} since ${info.startedAt ?? '?'}. ` +
      `If that process is gone, delete ${file}.`,
  );
}

/**
 * Replaces the stale lock `seen` with ours, if no one else does it first. Returns false when the
 * lock is no longer `seen` or another live sync holds the takeover guard.
 */
async function takeOver(file: string, seen: Seen, content: string): Promise<boolean> {
  const guardBase = `${file}.takeover-${seen.ino}`;
  let guard: string | undefined;
  for (let gen = 0; gen < MAX_GUARDS && guard === undefined; gen++) {
    const candidate = `${guardBase}-${gen}`;
    try {
      await fs.writeFile(candidate, String(process.pid), { flag: 'wx' });
      guard = candidate;
    } catch (e) {
      if (!isCode(e, 'EEXIST')) throw e;
      if (!(await guardAbandoned(candidate))) return false;
    }
  }
  if (guard === undefined) return false;
  try {
    const now = await readLock(file);
    if (now === null || !now.bytes.equals(seen.bytes)) return false;
    const tmp = await writeAside(file, content);
    await fs.rename(tmp, file);
    return true;
  } finally {
    // Guards of this stale lock are no use once it is gone; a late taker that still makes one
    // finds the lock changed and backs off.
    await removeGuards(file, seen.ino);
  }
}

/** A guard whose taker died (or that was never written and is old) no longer serialises anything. */
async function guardAbandoned(guard: string): Promise<boolean> {
  let text: string;
  let mtimeMs: number;
  try {
    text = await fs.readFile(guard, 'utf8');
    mtimeMs = (await fs.stat(guard)).mtimeMs;
  } catch (e) {
    if (isCode(e, 'ENOENT')) return true; // cleaned up by the winner: try the next generation
    throw e;
  }
  const pid = Number(text);
  if (text === '' || !Number.isSafeInteger(pid)) return Date.now() - mtimeMs > UNREADABLE_STALE_MS;
  return !processAlive(pid);
}

async function removeGuards(file: string, ino: number): Promise<void> {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.takeover-${ino}-`;
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  await Promise.all(names.filter((n) => n.startsWith(prefix)).map((n) => fs.rm(path.join(dir, n), { force: true })));
}

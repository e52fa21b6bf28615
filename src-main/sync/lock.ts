// One sync per DEST: DEST/.dataset-sync/lock holds pid, host and start time. A lock left by a
// dead process on this host is taken over; anything else is reported with its owner.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stateDir } from './layout';

export class LockHeldError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LockHeldError';
  }
}

interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
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

export async function acquireLock(dest: string): Promise<Lock> {
  const file = path.join(stateDir(dest), 'lock');
  const mine: LockInfo = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await fs.writeFile(file, JSON.stringify(mine) + '\n', { flag: 'wx' });
      return {
        async release() {
          await fs.rm(file, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let held: Partial<LockInfo> = {};
    try {
      held = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<LockInfo>;
    } catch {
      // Unreadable or half-written lock: treat as stale only if it is old enough to not be mid-write.
      const st = await fs.stat(file).catch(() => null);
      if (st && Date.now() - st.mtimeMs > 10_000) {
        await fs.rm(file, { force: true });
        continue;
      }
      throw new LockHeldError(`Another sync appears to be starting in ${dest} (lock file ${file} is being written).`);
    }
    const stale = held.host === os.hostname() && typeof held.pid === 'number' && !processAlive(held.pid);
    if (stale) {
      await fs.rm(file, { force: true });
      continue;
    }
    throw new LockHeldError(
      `Another sync is already running for ${dest}: pid ${held.pid ?? '?'} on host ${held.host ?? '?'} since ${held.startedAt ?? '?'}. ` +
        `If that process is gone, delete ${file}.`,
    );
  }
  throw new LockHeldError(`Could not take the lock ${file}.`);
}

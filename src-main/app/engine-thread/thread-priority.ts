// The engine thread yields the CPU to the window's main process (issue #21: no event-loop stall
// of the main process over 50 ms). A first sync keeps every core busy (the engine, its file
// writer and hashing threads, and on a test machine the service too), so a main thread that wakes
// for its next event often waits for a core: on a 2-core machine the longest such wait, not its
// own work, was most of its longest stall. A niceness of 10 on the engine thread, inherited by
// the threads it starts, lets the main thread (niceness 0) run first whenever both want a core;
// when nothing else wants the CPU the engine still gets all of it.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

export const ENGINE_THREAD_NICENESS = 10;

/**
 * Lowers the calling thread's priority. Linux only: a thread's id is readable there
 * (/proc/thread-self links to <pid>/task/<tid>) and setpriority() on it changes that thread
 * alone; elsewhere nice applies to the whole process, so nothing is changed. Returns whether it was lowered.
 */
export function lowerThisThreadsPriority(niceness = ENGINE_THREAD_NICENESS): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    if (!Number.isInteger(threadId) || threadId <= 0 || threadId === process.pid) return false;
    setPriority(threadId, niceness);
    return true;
  } catch {
    // A sandbox without /proc or one that refuses setpriority: the engine runs at the app's priority.
    return false;
  }
}

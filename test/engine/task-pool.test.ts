// TaskPool (src-main/sync/task-pool.ts): the queue a sync's downloads and consents run in. A task
// may give its place back before it ends (a download whose bytes only wait for the local disk):
// the next task starts at once, and idle() still waits for the one that gave its place back.
import { describe, expect, it } from 'vitest';
import { TaskPool } from '../../src-main/sync/task-pool';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('TaskPool', () => {
  it('runs no more than its capacity at once, in the order pushed', async () => {
    const pool = new TaskPool(2, 10);
    const started: number[] = [];
    const ends = [deferred(), deferred(), deferred()];
    for (const [i, end] of ends.entries()) {
      await pool.push(async () => {
        started.push(i);
        await end.promise;
      });
    }
    await turn();
    expect(started).toEqual([0, 1]);
    ends[0]!.resolve();
    await turn();
    expect(started).toEqual([0, 1, 2]);
    ends[1]!.resolve();
    ends[2]!.resolve();
    await pool.idle();
  });

  it('starts the next task when one gives its place back, and idle() waits for both', async () => {
    const pool = new TaskPool(1, 10);
    const started: string[] = [];
    const commit = deferred();
    let firstEnded = false;
    await pool.push(async (release) => {
      started.push('first');
      release(); // verified: only the commit to the disk is left
      release(); // twice is once
      await commit.promise;
      firstEnded = true;
    });
    const second = deferred();
    await pool.push(async () => {
      started.push('second');
      await second.promise;
    });
    await pool.push(async () => {
      started.push('third');
    });
    await turn();
    // The first gave its place back: the second runs beside it; the third waits for a place.
    expect(started).toEqual(['first', 'second']);
    let idle = false;
    const waiting = pool.idle().then(() => (idle = true));
    second.resolve();
    await turn();
    expect(started).toEqual(['first', 'second', 'third']);
    await turn();
    expect(idle).toBe(false); // the first is still committing
    commit.resolve();
    await waiting;
    expect(firstEnded).toBe(true);
  });
});

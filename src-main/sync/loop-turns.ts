// Long loops over every record (the dataset index, participants.csv, croissant.json, media.csv)
// share their thread's event loop with timers and messages (the CLI's progress and signals; in the
// app, the engine thread's pause, cancel and event batches, src-main/engine-worker.ts): a loop that
// never gives the event loop a turn holds all of them for as long as it runs (seconds at 100,000 sets). Async
// generators and stream pipelines alone do not help: their steps are microtasks, which run
// before the event loop's next turn. loopTurns hands the event loop a turn (setImmediate) once a
// slice of wall time has passed, so no stretch is much longer than the slice.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Wall time a loop may hold the event loop before it gives a turn. */
export const SLICE_MS = 10;

/** Returns `turn()`: resolves at once while the slice lasts, after an event-loop turn once it is spent. */
export function loopTurns(sliceMs = SLICE_MS): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < sliceMs) return undefined;
    return nextTurn().then(() => {
      since = performance.now();
    });
  };
}

/** The items of `items`, with an event-loop turn whenever a slice of wall time has passed. */
export async function* paced<T>(items: Iterable<T> | AsyncIterable<T>, sliceMs = SLICE_MS): AsyncGenerator<T> {
  const turn = loopTurns(sliceMs);
  for await (const item of items) {
    yield item;
    const wait = turn();
    if (wait) await wait;
  }
}

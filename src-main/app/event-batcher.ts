// Batches a fast event stream into a few messages a second, without the events a later one in
// the same batch supersedes (pending-events.ts).
import type { SyncEvent } from '../../src-shared/sync-events';
import { PendingEvents } from './pending-events';

export interface EventBatcher {
  push(event: SyncEvent): void;
  /** Sends what is pending now (at the end of a sync) and stops the timer. */
  flush(): void;
}

export const DEFAULT_BATCH_INTERVAL_MS = 250;

/** Sends after `intervalMs`, or as soon as `maxSize` events are pending. */
export function createEventBatcher(send: (events: SyncEvent[]) => void, intervalMs = DEFAULT_BATCH_INTERVAL_MS, maxSize = Infinity): EventBatcher {
  const pending = new PendingEvents();
  let timer: ReturnType<typeof setTimeout> | null = null;

  const flush = () => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (pending.size > 0) send(pending.take());
  };

  return {
    push(event) {
      pending.push(event);
      if (pending.size >= maxSize) flush();
      else timer ??= setTimeout(flush, intervalMs);
    },
    flush,
  };
}

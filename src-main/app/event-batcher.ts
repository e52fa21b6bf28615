// Batches a fast event stream into a few messages a second. Progress events supersede one
// another, so a batch keeps only the newest (moved to where it arrived); every other event
// is kept, in order.
import type { SyncEvent } from '../../src-shared/sync-events';

export interface EventBatcher {
  push(event: SyncEvent): void;
  /** Sends what is pending now (at the end of a sync) and stops the timer. */
  flush(): void;
}

export const DEFAULT_BATCH_INTERVAL_MS = 250;

export function createEventBatcher(send: (events: SyncEvent[]) => void, intervalMs = DEFAULT_BATCH_INTERVAL_MS): EventBatcher {
  let pending: SyncEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;

  const flush = () => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    send(batch);
  };

  return {
    push(event) {
      if (event.type === 'progress') {
        const previous = pending.findIndex((e) => e.type === 'progress');
        if (previous >= 0) pending.splice(previous, 1);
      }
      pending.push(event);
      timer ??= setTimeout(flush, intervalMs);
    },
    flush,
  };
}

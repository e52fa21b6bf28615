// The progress events the web bridge pushes to a page, read off its WebSocket: what the window
// was told, next to what it showed.
import type { Page } from 'playwright-core';
import type { ProgressEvent, SyncEvent } from '../../src-shared/sync-events';

/** Appends every `progress` event of every `sync:events` push the page receives to `into`. */
export function recordPushedProgress(page: Page, into: ProgressEvent[]): void {
  page.on('websocket', (ws) =>
    ws.on('framereceived', ({ payload }) => {
      const push = JSON.parse(String(payload)) as { event?: string; payload?: { events: SyncEvent[] } };
      if (push.event !== 'sync:events') return;
      for (const e of push.payload!.events) if (e.type === 'progress') into.push(e);
    }),
  );
}

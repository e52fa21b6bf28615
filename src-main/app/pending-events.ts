// The engine's events waiting to be sent on, with the ones a later event makes useless dropped.
// A first sync of 100,000 sets emits 1.4 million events, most of them a file's state changes
// (queued, downloading, verified: three per file); every event that crosses costs the main
// process a structured clone and the window an update, and both end up showing only the newest.
// So, within one batch:
// - a progress event replaces the previous one and takes its own place (it describes the whole
//   run at its moment, including the files in flight);
// - a file event replaces the earlier event of the same file where that one stood, so the files
//   keep the order they were first reported in (the order of the Files table's rows);
// - every other event (sets, media, warnings, start, summary) is kept, in order.
// The window's reducer (src-renderer/stores/sync-reducer.ts) keeps only a file's newest state and bytes, so
// what it shows after a batch is the same with or without the dropped events.
import { fileKey, type SyncEvent } from '../../src-shared/sync-events';

export class PendingEvents {
  /** Emptied slots (a superseded progress event) are `undefined` until `take` compacts them. */
  private events: Array<SyncEvent | undefined> = [];
  private progressAt = -1;
  private readonly fileAt = new Map<string, number>();
  private kept = 0;

  /** Events that will be sent (after dropping the superseded ones). */
  get size(): number {
    return this.kept;
  }

  push(event: SyncEvent): void {
    if (event.type === 'progress') {
      if (this.progressAt >= 0) {
        this.events[this.progressAt] = undefined;
        this.kept--;
      }
      this.progressAt = this.events.length;
    } else if (event.type === 'file') {
      const key = fileKey(event);
      const at = this.fileAt.get(key);
      if (at !== undefined) {
        this.events[at] = event;
        return;
      }
      this.fileAt.set(key, this.events.length);
    }
    this.events.push(event);
    this.kept++;
  }

  /** The pending events in order, leaving this empty. */
  take(): SyncEvent[] {
    const taken = this.kept === this.events.length ? (this.events as SyncEvent[]) : this.events.filter((e): e is SyncEvent => e !== undefined);
    this.events = [];
    this.progressAt = -1;
    this.fileAt.clear();
    this.kept = 0;
    return taken;
  }
}

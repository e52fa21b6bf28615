// Auto-sync: every N minutes (settings.autoSyncMinutes, null = off) start a sync for each
// collection that has a dataset folder, while connected. A collection already syncing (or
// being verified) is skipped for that round, never queued.
import type { SettingsStore } from '../settings/settings-store';
import type { ConnectionManager } from './connection';
import type { Emit, SyncController } from './sync-controller';

export interface SchedulerDeps {
  settings: SettingsStore;
  connection: ConnectionManager;
  syncs: SyncController;
  emit: Emit;
}

export interface TickResult {
  started: number[];
  skippedBusy: number[];
  failed: Array<{ collectionId: number; message: string }>;
}

export class Scheduler {
  private timer: ReturnType<typeof setInterval> | null = null;
  private minutes: number | null = null;

  constructor(private readonly deps: SchedulerDeps) {}

  /** Applies the current autoSyncMinutes; call at start and after every settings change. */
  reschedule(): void {
    const minutes = this.deps.settings.view().autoSyncMinutes;
    if (minutes === this.minutes && (this.timer !== null) === (minutes !== null)) return;
    this.stop();
    this.minutes = minutes;
    if (minutes === null) return;
    this.timer = setInterval(() => void this.tick(), minutes * 60_000);
    // Never keep the process alive only for the next round.
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.minutes = null;
  }

  /** One round; public so the app (and tests) can trigger it without waiting. */
  async tick(): Promise<TickResult> {
    const result: TickResult = { started: [], skippedBusy: [], failed: [] };
    if (!(await this.deps.connection.current().catch(() => null))) return result;
    for (const id of Object.keys(this.deps.settings.view().collections).map(Number)) {
      if (this.deps.syncs.isBusy(id)) {
        result.skippedBusy.push(id);
        continue;
      }
      try {
        await this.deps.syncs.start(id);
        result.started.push(id);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        result.failed.push({ collectionId: id, message });
        this.deps.emit('notice', { level: 'warning', message: `Auto-sync of collection ${id} did not start: ${message}` });
      }
    }
    return result;
  }
}

// Auto-sync: every N minutes (settings.autoSyncMinutes, null = off) start a sync for each
// (account, collection) that has a dataset folder, for every account whose key is stored. A
// collection already syncing (or being verified) is skipped for that round, never queued.
import type { SettingsStore } from '../settings/settings-store';
import type { ConnectionManager } from './connection';
import type { CollectionRef, Emit, SyncController } from './sync-controller';

export interface SchedulerDeps {
  settings: SettingsStore;
  connection: ConnectionManager;
  syncs: SyncController;
  emit: Emit;
}

export interface TickResult {
  started: CollectionRef[];
  skippedBusy: CollectionRef[];
  failed: Array<CollectionRef & { message: string }>;
}

export class Scheduler {
  private timer: ReturnType<typeof setInterval> | null = null;
  private minutes: number | null = null;
  private nextAt: number | null = null;

  constructor(private readonly deps: SchedulerDeps) {}

  /** Applies the current autoSyncMinutes; call at start and after every settings change. */
  reschedule(): void {
    const minutes = this.deps.settings.view().autoSyncMinutes;
    if (minutes === this.minutes && (this.timer !== null) === (minutes !== null)) return;
    this.stop();
    this.minutes = minutes;
    if (minutes === null) return;
    this.nextAt = Date.now() + minutes * 60_000;
    this.timer = setInterval(() => {
      this.nextAt = Date.now() + minutes * 60_000;
      void this.tick();
    }, minutes * 60_000);
    // Never keep the process alive only for the next round.
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.minutes = null;
    this.nextAt = null;
  }

  /** Whether auto-sync is on, and when its next round starts (shown in the window's header). */
  next(): { minutes: number; nextAt: string } | null {
    return this.minutes === null || this.nextAt === null ? null : { minutes: this.minutes, nextAt: new Date(this.nextAt).toISOString() };
  }

  /** One round; public so the app (and tests) can trigger it without waiting. */
  async tick(): Promise<TickResult> {
    const result: TickResult = { started: [], skippedBusy: [], failed: [] };
    for (const account of this.deps.settings.accounts()) {
      if (!(await this.deps.connection.credentialsFor(account.id).catch(() => null))) continue;
      for (const collectionId of Object.keys(this.deps.settings.datasets(account.id)).map(Number)) {
        const ref = { accountId: account.id, collectionId };
        if (this.deps.syncs.isBusy(ref)) {
          result.skippedBusy.push(ref);
          continue;
        }
        try {
          await this.deps.syncs.start(ref);
          result.started.push(ref);
        } catch (e) {
          const message = e instanceof Error ? e.message : String(e);
          result.failed.push({ ...ref, message });
          this.deps.emit('notice', { level: 'warning', message: `Auto-sync of ${this.deps.syncs.titleOf(ref)} did not start: ${message}`, accountId: account.id });
        }
      }
    }
    return result;
  }
}

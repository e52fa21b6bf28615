// "Sync all": every collection of the account that has a dataset folder, one after the other
// (one at a time keeps the disk and the service's rate limits calm), each shown like any sync.
// A collection already syncing is waited for, not started twice; a start that fails (no key,
// lock held) is reported and the queue moves on; cancelling one of its syncs ends the queue.
import type { SettingsStore } from '../settings/settings-store';
import { AppError } from './app-error';
import type { Emit, SyncController } from './sync-controller';

export interface SyncAllDeps {
  settings: SettingsStore;
  syncs: SyncController;
  emit: Emit;
}

export class SyncAll {
  private readonly queues = new Map<string, { done: Promise<void>; stopped: boolean }>();

  constructor(private readonly deps: SyncAllDeps) {}

  isRunning(accountId: string): boolean {
    return this.queues.has(accountId);
  }

  /** Queues the account's collections with a folder and returns their ids at once; busy if a queue runs. */
  start(accountId: string): number[] {
    if (this.queues.has(accountId)) throw new AppError('busy', 'Sync all is already running for this account.');
    const ids = Object.keys(this.deps.settings.datasets(accountId))
      .map(Number)
      .sort((a, b) => a - b);
    if (ids.length === 0) throw new AppError('no_folder', 'No collection has a dataset folder yet: choose one first.');
    const queue = { done: Promise.resolve(), stopped: false };
    this.queues.set(accountId, queue);
    queue.done = this.run(accountId, ids, queue).finally(() => this.queues.delete(accountId));
    return ids;
  }

  /** Starts no further collection (quit, key forgotten); the running sync is the controller's to cancel. */
  stop(accountId?: string): void {
    for (const [id, queue] of this.queues) if (accountId === undefined || id === accountId) queue.stopped = true;
  }

  /** The running queue (tests, shutdown). */
  settled(accountId: string): Promise<void> {
    return this.queues.get(accountId)?.done ?? Promise.resolve();
  }

  private async run(accountId: string, ids: number[], queue: { stopped: boolean }): Promise<void> {
    for (const collectionId of ids) {
      const ref = { accountId, collectionId };
      await this.deps.syncs.settled(ref);
      if (queue.stopped) return;
      try {
        await this.deps.syncs.start(ref);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        this.deps.emit('notice', { level: 'warning', message: `Sync all: ${this.deps.syncs.titleOf(ref)} did not start: ${message}`, accountId });
        continue;
      }
      await this.deps.syncs.settled(ref);
      // Cancel on one collection means "stop": the rest of the queue is not started either.
      if ((await this.deps.syncs.state(ref)).lastSummary?.cancelled) return;
    }
  }
}

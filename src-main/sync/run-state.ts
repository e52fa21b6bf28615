// The engine state of one run as it changes: the head state (state.json: collection, service,
// watermark, pending sets, index fingerprint) and the set records (state.db). Every change goes
// through this class, which knows whether the run changed anything (else the final save is
// skipped: the bytes would be the same) and saves now and then while downloads go on.
import type { Clock } from './clock';
import type { Destination } from './destination/destination';
import type { LocalSet, SetStore } from './state/set-store';
import { saveState, type EngineState, type IndexFingerprint } from './state';
import { indexListsStore } from './index-mark';

const STATE_SAVE_INTERVAL_MS = 3000;

export class RunState {
  private changed = false;
  private lastSave = 0;
  private lastSaveMs = 0;
  private saving: Promise<void> = Promise.resolve();
  /**
   * manifest.csv and SHA256SUMS as this run found them, when they listed the set records then;
   * with `changedSets`, what dataset-index.ts needs to append rows instead of writing them whole.
   */
  readonly indexAtStart: IndexFingerprint | undefined;
  /** Ids of the sets put since the run started. */
  readonly changedSets = new Set<number>();
  /** Ids of the sets that left the dataset in this run: their rows are in the files, so nothing can be appended. */
  readonly removedSets = new Set<number>();
  /** The dataset held a set when the run started (a first sync has nothing that could leave it). */
  readonly heldSetsAtStart: boolean;

  constructor(
    private readonly dest: Destination,
    readonly head: EngineState,
    readonly store: SetStore,
    private readonly clock: Clock,
  ) {
    this.indexAtStart = head.index && indexListsStore(head.index, store) ? head.index : undefined;
    this.heldSetsAtStart = store.hasSets();
  }

  /** The head state was changed by the caller. */
  touch(): void {
    this.changed = true;
  }

  /**
   * A set record changed: written to the store, and manifest.csv and SHA256SUMS no longer match.
   * The index record is dropped at once, not only told from the store's change counter: a state
   * saved mid-sync must not vouch for them.
   */
  putLocal(local: LocalSet): void {
    this.store.put(local);
    this.changedSets.add(local.id);
    this.head.index = undefined;
    this.touch();
  }

  /** The set left the dataset (withdraw.ts): its record goes, manifest.csv and SHA256SUMS no longer match. */
  forget(id: number): void {
    this.store.remove(id);
    this.removedSets.add(id);
    this.head.index = undefined;
    this.touch();
  }

  /** A set to fetch again on the next sync, whatever the watermark says. */
  addPending(id: number): void {
    if (this.head.pendingSets.includes(id)) return;
    this.head.pendingSets.push(id);
    this.touch();
  }

  dropPending(id: number): void {
    if (!this.head.pendingSets.includes(id)) return;
    this.head.pendingSets = this.head.pendingSets.filter((x) => x !== id);
    this.touch();
  }

  /** Saves records and head state in the background, at most every few seconds. */
  saveSoon(): void {
    const now = this.clock.now();
    // A large state takes a while to serialize on the event loop: keep saving to under ~10% of the time.
    if (now - this.lastSave < Math.max(STATE_SAVE_INTERVAL_MS, 10 * this.lastSaveMs)) return;
    this.lastSave = now;
    this.saving = this.saving
      .then(async () => {
        const t = this.clock.now();
        // Every record is committed before the head that vouches for them: most in turns, then
        // what was put meanwhile in the same synchronous stretch as the head's serialization.
        await this.store.flushInTurns();
        this.store.flushDurably();
        await saveState(this.dest, this.head);
        this.lastSaveMs = this.clock.now() - t;
      })
      .catch(() => undefined);
  }

  /** Waits for a background save in flight. */
  settled(): Promise<void> {
    return this.saving;
  }

  /** The final save: every record made durable, the head saved only when this run changed something. */
  async saveIfChanged(): Promise<void> {
    this.store.flushDurably();
    if (this.changed) await saveState(this.dest, this.head);
  }
}

// The engine state of one run (state/engine-store.ts: set records, the stages' results and the head
// state, written by intent) and when it is saved: now and then while downloads go on, and at the
// end. Opening it takes the head from where it is: the state database; a folder's state.json from
// before the head moved into it (imported once, with the version 1 records it may hold); or, for a
// destination shared across machines (a bucket), the copy it carries, which this machine's records
// match only when they were saved with the same generation.
import { randomUUID } from 'node:crypto';
import type { Clock } from './clock';
import type { Destination } from './destination/destination';
import { indexListsStore } from './index-mark';
import type { EngineState, IndexFingerprint } from './state/head';
import { SqliteEngineStore, type EngineStore } from './state/engine-store';
import { readLocalGeneration } from './state/local-generation';
import { MIGRATED_STATE_KEY, publishHead, readPublishedHead, STATE_KEY } from './state/published-head';
import { legacyRecords } from './state-migration';

const STATE_SAVE_INTERVAL_MS = 3000;

export class RunState {
  private lastSave = 0;
  private lastSaveMs = 0;
  private saving: Promise<void> = Promise.resolve();
  /** A head to publish into the destination (shared across machines) at the next save. */
  private unpublished = false;
  /**
   * manifest.csv and SHA256SUMS as this run found them, when they listed the set records then;
   * with the store's changedSets, what dataset-index.ts needs to append rows instead of writing them whole.
   */
  readonly indexAtStart: IndexFingerprint | undefined;
  /** The dataset held a set when the run started (a first sync has nothing that could leave it). */
  readonly heldSetsAtStart: boolean;

  private constructor(
    private readonly dest: Destination,
    readonly store: EngineStore,
    private readonly clock: Clock,
    /** Whether this machine's records match the head (false for a shared destination last synced elsewhere: the watermark is not trusted). */
    readonly recordsMatch: boolean,
    /** A folder's state.json, imported: renamed once the head it held is committed here. */
    private importedStateFile: boolean,
  ) {
    const head = store.head;
    this.indexAtStart = head.index && indexListsStore(head.index, store) ? head.index : undefined;
    this.heldSetsAtStart = store.hasSets();
  }

  /** Opens the state of `dest` under its lock (see the header). */
  static async open(dest: Destination, clock: Clock): Promise<RunState> {
    const store = SqliteEngineStore.open(dest.stateDir);
    try {
      if (dest.sharedAcrossMachines) {
        const published = await readPublishedHead(dest);
        // This machine's generation: the database's, or the file an earlier version kept it in.
        const local = store.head.generation ?? readLocalGeneration(dest.stateDir);
        const head = published?.state ?? store.head;
        const matches = head.watermark === null || (local !== null && local === (head.generation ?? null));
        if (published) store.adoptHead(published.state);
        return new RunState(dest, store, clock, matches, false);
      }
      if (SqliteEngineStore.hasHead(store)) return new RunState(dest, store, clock, true, false);
      const legacy = await readPublishedHead(dest);
      if (!legacy) return new RunState(dest, store, clock, true, false);
      store.adoptHead(legacy.state);
      if (legacy.legacy) store.importRecords(legacyRecords(legacy.legacy));
      return new RunState(dest, store, clock, true, true);
    } catch (e) {
      store.close();
      throw e;
    }
  }

  get head(): Readonly<EngineState> {
    return this.store.head;
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
        // Every record is committed in turns, then what was put meanwhile with the head, durably.
        await this.store.flushInTurns();
        await this.commit();
        this.lastSaveMs = this.clock.now() - t;
      })
      .catch(() => undefined);
  }

  /** Waits for a background save in flight. */
  settled(): Promise<void> {
    return this.saving;
  }

  /** The final save: every record and the head made durable; a shared destination's copy published when the head changed. */
  async saveIfChanged(): Promise<void> {
    await this.commit();
  }

  /**
   * Commits what is pending under an fsync (flushDurably), then publishes the head where the
   * destination carries it. A shared head gets a new generation first: the database keeps it with
   * the records, the destination's copy names it, and another machine's records then differ.
   */
  private async commit(): Promise<void> {
    const shared = this.dest.sharedAcrossMachines === true;
    if (shared && this.store.headChanged) {
      this.store.setGeneration(randomUUID());
      this.unpublished = true;
    }
    this.store.flushDurably();
    if (this.unpublished) {
      await publishHead(this.dest, this.store.head as EngineState);
      this.unpublished = false;
    }
    if (this.importedStateFile) await this.retireStateFile();
  }

  /** A folder's imported state.json is renamed once its head is committed in the database (nothing reads it again). */
  private async retireStateFile(): Promise<void> {
    await this.dest.move(STATE_KEY, this.dest, MIGRATED_STATE_KEY).catch(() => undefined);
    this.importedStateFile = false;
  }
}

// The engine's store written by intent (DESIGN §2): every write says what happened to the dataset
// (a file was verified, files were lost, a set ended, a set left, a stage learnt something, the
// watermark moved), and the store applies it to its own copy of the record. No caller edits a
// record and puts it back: what get() hands out is read-only, so a forgotten "put" or two callers
// editing one record can no longer lose a change.
//
// Each intent is applied whole, at once, and reaches the disk whole in one SQLite transaction (the
// next flush's: records, the stages' results and the head state go in the same commit, so the
// head never vouches for a record not written). Intents are not one transaction each on disk: a
// first sync verifies thousands of files a second and a commit per file would cost more than the
// file (state/set-store.ts batches 64 sets per commit, measured in issue 21); a crash loses at most
// the intents since the last commit, never half of one.
//
// The head state (watermark, binding, subset, pending sets, the dataset files' fingerprints, the
// generation of a shared destination) lives in the same database (head-table.ts).
import type { Subset } from '../subset';
import type { EngineState, IndexFingerprint, ResearchFingerprint } from './head';
import { readHeadRow, writeHeadRow } from './head-table';
import type { FileEntry, LocalSet, ParticipantEntry } from './records';
import type { FileVersion } from './stage-results';
import { SetStore, type RecordedFile } from './set-store';

/** A set record as the store hands it out: read-only (an edit goes through an intent). */
export type SetView = Readonly<Omit<LocalSet, 'files' | 'participants'>> & {
  readonly files: Readonly<Record<string, Readonly<FileEntry>>>;
  readonly participants?: readonly Readonly<ParticipantEntry>[];
};

/** The fields of a file's entry that come from the service's listing (what an unchanged file may still see change). */
export type ListingFields = Pick<FileEntry, 'setId' | 'fileId' | 'slotIndex' | 'slotKey' | 'sizeBytes' | 'sha256' | 'participantRefs' | 'isGold' | 'acceptedAt' | 'updatedAt'>;

/**
 * Why files leave a set's record: `lost` (gone or changed on disk, untrusted by a repair: the set
 * is no longer complete), `left_out` (moved out by the subset: the set is as complete as it was),
 * `replaced` (an edit renamed the slot's file, whose new file is recorded).
 */
export type DropReason = 'lost' | 'left_out' | 'replaced';

/** How a set's walk ended (set-outcome.ts). */
export interface SetOutcome {
  updatedAt: string;
  isGold: boolean;
  complete: boolean;
}

export interface EngineStore {
  /** This run's number: files it verifies are marked with it (queries.ts: what the last run changed). */
  readonly run: number;
  /** The head state as it is now (read-only: changed by the head intents below). */
  readonly head: Readonly<EngineState>;

  // Reads.
  get(id: number): SetView | undefined;
  hasSets(): boolean;
  count(): number;
  ids(): number[];
  /** Every record in set-id order, with the stages' results attached to their files, a page at a time. */
  all(): Generator<LocalSet>;
  recordedFiles(): Generator<RecordedFile>;
  /** The records of `ids`, read fresh, with the stages' results attached (as all() yields them). */
  readWithResults(ids: readonly number[]): LocalSet[];
  /** `stage`'s result (its JSON) of this version of the file; undefined when it has none. */
  stageResult(stage: string, file: FileVersion): string | undefined;
  setsOwingStage(stage: string): Array<[setId: number, files: number]>;
  /** Grows with every commit that wrote records (the dataset index's "nothing changed since" mark). */
  readonly changeCount: number;
  /** Sets a record intent changed in this run, and sets forgotten in it (the dataset index appends or rewrites by them). */
  readonly changedSets: ReadonlySet<number>;
  readonly removedSets: ReadonlySet<number>;

  // What happened to the records.
  /** A file was verified (downloaded, or adopted by its hash) under `path`: its entry. */
  recordVerified(setId: number, path: string, entry: FileEntry): void;
  /** An up-to-date file whose listing fields changed (an edit of the set's metadata). */
  updateListing(setId: number, path: string, fields: ListingFields): void;
  /** Files left the record (see DropReason). */
  dropFiles(setId: number, paths: readonly string[], reason: DropReason): void;
  /** The set's participants as the service lists them now (participants.csv is written from them). */
  setParticipants(setId: number, participants: ParticipantEntry[]): void;
  /** The set's walk ended: complete or not, with the updated_at and gold flag it ended at. */
  setOutcome(setId: number, outcome: SetOutcome): void;
  /** The set left the dataset (withdraw.ts): its record and its results go. */
  forget(setId: number): void;
  /** Records kept by an earlier layout, imported whole (state-migration.ts). */
  importRecords(records: Iterable<LocalSet>): void;
  /** What a stage learnt of one version of a file (opaque JSON: stages/). */
  recordStageResult(stage: string, file: FileVersion, json: string): void;

  // What happened to the head.
  addPending(id: number): void;
  dropPending(id: number): void;
  setWatermark(watermark: string): void;
  /** The dataset belongs to this service and collection from now on. */
  bind(owner: { baseUrl: string; collectionId: number }): void;
  /** The subset the dataset holds (undefined: the whole collection); a change clears the watermark. */
  setSubset(subset: Subset | undefined): void;
  /** manifest.csv and SHA256SUMS as just written, from the records as they are now. */
  recordIndex(index: IndexFingerprint): void;
  recordResearch(research: ResearchFingerprint): void;
  /** A stage's dataset file as just written (opaque to the store: stages/). */
  recordStageFile(stage: string, fingerprint: unknown): void;
  /** A new generation of a head shared across machines (run-state.ts saves). */
  setGeneration(generation: string): void;
  /** The head a destination shared across machines carries, taken as this run's (run-state.ts). */
  adoptHead(head: EngineState): void;
  /** Whether the head changed since it was last committed. */
  readonly headChanged: boolean;

  // Durability.
  flush(): void;
  flushInTurns(): Promise<void>;
  flushDurably(): void;
  close(): void;
}

/** The SQLite store of one destination's state folder. */
export class SqliteEngineStore implements EngineStore {
  private headNow: EngineState;
  private headDirty = false;
  private readonly changed = new Set<number>();
  private readonly removed = new Set<number>();

  private constructor(private readonly sets: SetStore) {
    this.headNow = sets.readHead(readHeadRow) ?? emptyHead();
    sets.beforeCommit({
      pending: () => this.headDirty,
      write: (db) => {
        writeHeadRow(db, this.headNow);
        this.headDirty = false;
      },
    });
  }

  /** Opens the state folder `stateDir` (Destination.stateDir) and starts a run (SetStore.open). */
  static open(stateDir: string): SqliteEngineStore {
    return new SqliteEngineStore(SetStore.open(stateDir));
  }

  /** Whether the database held a head when opened (false: a new folder, or one whose head is still in state.json). */
  static hasHead(store: SqliteEngineStore): boolean {
    return store.sets.readHead(readHeadRow) !== null;
  }

  get run(): number {
    return this.sets.run;
  }
  get head(): Readonly<EngineState> {
    return this.headNow;
  }
  get headChanged(): boolean {
    return this.headDirty;
  }
  get changeCount(): number {
    return this.sets.changeCount;
  }
  get changedSets(): ReadonlySet<number> {
    return this.changed;
  }
  get removedSets(): ReadonlySet<number> {
    return this.removed;
  }

  get(id: number): SetView | undefined {
    return this.sets.get(id);
  }
  hasSets(): boolean {
    return this.sets.hasSets();
  }
  count(): number {
    return this.sets.count();
  }
  ids(): number[] {
    return this.sets.ids();
  }
  all(): Generator<LocalSet> {
    return this.sets.all();
  }
  recordedFiles(): Generator<RecordedFile> {
    return this.sets.recordedFiles();
  }
  readWithResults(ids: readonly number[]): LocalSet[] {
    return this.sets.readWithResults(ids);
  }
  stageResult(stage: string, file: FileVersion): string | undefined {
    return this.sets.stageResult(stage, file);
  }
  setsOwingStage(stage: string): Array<[number, number]> {
    return this.sets.setsOwingStage(stage);
  }

  /**
   * Applies `change` to the set's record (created when unknown); a change that changed nothing
   * (it answers false) writes nothing. A changed record no longer matches manifest.csv and
   * SHA256SUMS: the head stops vouching for them at once, so a head saved mid-sync never does.
   */
  private edit(id: number, change: (rec: LocalSet) => boolean): void {
    const rec = this.sets.editable(id);
    if (!change(rec)) return;
    this.sets.put(rec);
    this.changed.add(id);
    this.removed.delete(id);
    this.changeHead((h) => {
      h.index = undefined;
    });
  }

  recordVerified(setId: number, path: string, entry: FileEntry): void {
    this.edit(setId, (rec) => {
      rec.files[path] = entry;
      return true;
    });
  }

  updateListing(setId: number, path: string, fields: ListingFields): void {
    this.edit(setId, (rec) => {
      const e = rec.files[path];
      if (!e || sameListing(e, fields)) return false;
      rec.files[path] = { ...e, ...fields };
      return true;
    });
  }

  dropFiles(setId: number, paths: readonly string[], reason: DropReason): void {
    if (this.sets.get(setId) === undefined) return;
    this.edit(setId, (rec) => {
      let dropped = false;
      for (const p of paths) if (p in rec.files) dropped = delete rec.files[p];
      if (reason === 'lost' && rec.complete) {
        rec.complete = false;
        return true;
      }
      return dropped;
    });
  }

  setParticipants(setId: number, participants: ParticipantEntry[]): void {
    this.edit(setId, (rec) => {
      if (rec.participants && JSON.stringify(rec.participants) === JSON.stringify(participants)) return false;
      rec.participants = participants;
      return true;
    });
  }

  setOutcome(setId: number, o: SetOutcome): void {
    this.edit(setId, (rec) => {
      if (rec.updatedAt === o.updatedAt && rec.isGold === o.isGold && rec.complete === o.complete && rec.leftAccepted === undefined) return false;
      Object.assign(rec, { updatedAt: o.updatedAt, isGold: o.isGold, complete: o.complete });
      delete rec.leftAccepted;
      return true;
    });
  }

  forget(setId: number): void {
    this.sets.remove(setId);
    this.changed.delete(setId);
    this.removed.add(setId);
    this.changeHead((h) => {
      h.index = undefined;
    });
  }

  importRecords(records: Iterable<LocalSet>): void {
    for (const rec of records) {
      this.sets.put(rec);
      this.changed.add(rec.id);
    }
    this.changeHead((h) => {
      h.index = undefined;
    });
  }

  recordStageResult(stage: string, file: FileVersion, json: string): void {
    this.sets.recordStageResult(stage, file, json);
  }

  private changeHead(change: (h: EngineState) => void): void {
    change(this.headNow);
    this.headDirty = true;
  }

  addPending(id: number): void {
    if (this.headNow.pendingSets.includes(id)) return;
    this.changeHead((h) => h.pendingSets.push(id));
  }
  dropPending(id: number): void {
    if (!this.headNow.pendingSets.includes(id)) return;
    this.changeHead((h) => (h.pendingSets = h.pendingSets.filter((x) => x !== id)));
  }
  setWatermark(watermark: string): void {
    if (this.headNow.watermark === watermark) return;
    this.changeHead((h) => (h.watermark = watermark));
  }
  bind(owner: { baseUrl: string; collectionId: number }): void {
    if (this.headNow.baseUrl === owner.baseUrl && this.headNow.collectionId === owner.collectionId) return;
    this.changeHead((h) => Object.assign(h, owner));
  }
  setSubset(subset: Subset | undefined): void {
    this.changeHead((h) => {
      if (subset) h.subset = subset;
      else delete h.subset;
      h.watermark = null;
    });
  }
  recordIndex(index: IndexFingerprint): void {
    this.changeHead((h) => (h.index = { ...index, changes: this.sets.changeCount }));
  }
  recordResearch(research: ResearchFingerprint): void {
    this.changeHead((h) => (h.research = research));
  }
  recordStageFile(stage: string, fingerprint: unknown): void {
    this.changeHead((h) => (h.stageFiles = { ...h.stageFiles, [stage]: fingerprint }));
  }
  setGeneration(generation: string): void {
    this.changeHead((h) => (h.generation = generation));
  }
  adoptHead(head: EngineState): void {
    // Keep this machine's generation: it says which save of the shared head the records match.
    const generation = this.headNow.generation;
    const same = JSON.stringify({ ...head, generation }) === JSON.stringify({ ...this.headNow, generation });
    this.headNow = structuredClone(head);
    if (generation === undefined) delete this.headNow.generation;
    else this.headNow.generation = generation;
    // The head this machine committed last, unchanged: nothing to write (a no-op publishes nothing).
    if (!same) this.headDirty = true;
  }

  flush(): void {
    this.sets.flush();
  }
  flushInTurns(): Promise<void> {
    return this.sets.flushInTurns();
  }
  flushDurably(): void {
    this.sets.flushDurably();
  }
  close(): void {
    this.sets.close();
  }
}

function emptyHead(): EngineState {
  return { version: 2, baseUrl: null, collectionId: null, watermark: null, pendingSets: [] };
}

function sameListing(a: FileEntry, b: ListingFields): boolean {
  return (
    a.setId === b.setId &&
    a.fileId === b.fileId &&
    a.slotIndex === b.slotIndex &&
    a.slotKey === b.slotKey &&
    a.sizeBytes === b.sizeBytes &&
    a.sha256 === b.sha256 &&
    a.participantRefs === b.participantRefs &&
    a.isGold === b.isGold &&
    a.acceptedAt === b.acceptedAt &&
    a.updatedAt === b.updatedAt
  );
}

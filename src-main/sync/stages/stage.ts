// What a stage is (DESIGN §2, "stages that ride the stream"): work a sync does to a verified file
// besides its hash, and the dataset files it writes from what it learnt. The run, the per-set
// plan, the transfers, progress and the dataset index loop over the stages (pipeline.ts) and name
// none: a new stage is one module here and one line in registry.ts.
//
// A streaming stage sees a download's bytes as they are hashed (tap): nothing is read twice and a
// bucket needs no local copy. Files it did not see stream past (up to date, adopted, owed by an
// earlier sync without the stage) it learns from the destination on its own, paced work that
// progress counts. Its results go to the store as opaque JSON (EngineStore.recordStageResult), one per
// version (sha256) of a file, so a file is checked once per version and a no-op sync checks nothing.
import type { MediaProbe } from '../../../src-shared/delivery-api';
import type { SyncEvent, SyncSummary } from '../../../src-shared/sync-events';
import type { Destination } from '../destination/destination';
import type { RunState } from '../run-state';
import type { LocalSet, LocalSets } from '../state/records';

/** A file as the stages see it (a version of it: its set, its id in the listing, its sha256). */
export interface StageFile {
  setId: number;
  /** The file's id in the service's listing. */
  fileId: number;
  /** The key relative to DEST, as in manifest.csv (sets/<id>/<filename>). */
  path: string;
  sha256: string;
  sizeBytes: number;
  /** What the service's listing says of the file's video, when it says it. */
  listedMedia?: MediaProbe;
}

/** One attempt's view of a body: every byte from offset 0, in order (a resume's held bytes first). */
export interface StreamTap {
  push(chunk: Buffer): void;
  /** True once it needs no more bytes: the transfer stops handing it chunks. */
  readonly done: boolean;
}

/** How a file came to be verified in this sync. */
export type VerifiedHow = 'downloaded' | 'up_to_date' | 'adopted';

/** What a stage is given when a sync starts. */
export interface StageContext {
  dest: Destination;
  state: RunState;
  emit(e: SyncEvent): void;
  signal: AbortSignal;
}

/** Counts of a stage's own work, in files, for the progress events (its share of the bar and the ETA). */
export interface StageWork {
  done: number;
  total: number;
}

/** A file of the dataset a stage writes at the end of a sync (media.csv), beside manifest.csv (dataset-index.ts). */
export interface DatasetFileWriter<Plan = unknown> {
  readonly key: string;
  /**
   * What the file needs: nothing when the index is unchanged and the file is as written, its rows
   * for `appended` appended when the manifest took those sets as appended rows; `rewrite` when it
   * must be written whole from every record (a plan for `writeWhole`).
   */
  update(dest: Destination, state: RunState, indexUnchanged: boolean, appended: readonly LocalSet[] | undefined): Promise<{ done: Partial<SyncSummary> } | { rewrite: Plan }>;
  /** Writes it whole from every record (`sets`: the end's shared pass, in set-id order); what the summary reports of it. */
  writeWhole(dest: Destination, state: RunState, sets: LocalSets, plan: Plan): Promise<Partial<SyncSummary>>;
}

export interface Stage {
  readonly name: string;
  /** A streaming stage: a fresh tap for one attempt at a file's body; undefined when it need not see the bytes. */
  tap?(file: StageFile): StreamTap | undefined;
  /** The file is verified under its key. `tap`: the one that saw every byte of it (a download); undefined when none did. */
  verified(file: StageFile, how: VerifiedHow, tap: StreamTap | undefined): void;
  /** Its own work the sync waits for (files it reads on its own), counted by progress. */
  work(): StageWork;
  /** Called once the records are open: work owed by earlier syncs may start beside the downloads. */
  start?(): void;
  /** Resolves once its work has ended (a cancelled sync drops what has not started). */
  finish(): Promise<void>;
  /** The dataset files it writes at the end. */
  readonly datasetFiles: readonly DatasetFileWriter[];
}

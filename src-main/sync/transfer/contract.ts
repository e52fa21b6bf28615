// What a transfer is given and what it answers (docs/contracts.md §4): the file's own job
// (TransferJob), what every transfer of a sync shares (TransferContext), the committed file
// (Transferred) and the two ways a file fails for good (FileFailedError, FolderEscapeError), which
// file-download.ts reports while the sync goes on. Kept apart from the code so that every module of the
// transfer can import it and their imports run one way, without a cycle: contract <- tapped-hash,
// body-sinks <- part-sink <- file-tries <- attempts <- transfer.ts (the entry, which re-exports this).
import type { DeliveryClient } from '../../api/delivery-client';
import type { Destination } from '../destination/destination';
import type { Accounting } from '../accounting';
import type { CodedError } from '../failure-code';
import type { RetryPolicy } from '../retry';
import type { FailureCode } from '../../../src-shared/sync-events';
import type { StageTaps } from '../stages/pipeline';

export interface TransferJob {
  fileId: number;
  url: string;
  sizeBytes: number;
  sha256: string;
  /** The destination key (relative to DEST, as in events and manifest.csv). */
  relPath: string;
  /** Names the held bytes across attempts and syncs: `${setId}-${fileId}-${sha256}` (ExpectedBody.resumeKey). */
  resumeKey: string;
  /** The stages' taps for one attempt at the body (stages/pipeline.ts): asked again whenever the hash starts over. */
  taps?(): StageTaps | undefined;
  /**
   * Called once the bytes are verified, just before a commit that only writes to this machine's
   * disk (Upload.commitsLocally): the network is done with this file (file-download.ts lets the next
   * download start).
   */
  committingLocally?(): void;
  onRetry(attempt: number, reason: string, bytesDone: number, code: FailureCode): void;
}

/** A committed file: the stamp to record, and the stages' taps that saw every byte of it. */
export interface Transferred {
  stamp: string;
  taps?: StageTaps;
}

/** What every transfer of a sync shares (one object per sync; what is the file's own is in its TransferJob). */
export interface TransferContext {
  /** Where the file goes: an upload per attempt, committed once the hash matched. */
  dest: Destination;
  client: DeliveryClient;
  policy: RetryPolicy;
  signal: AbortSignal;
  /** Progress counters, statistics and the rate limit (every received chunk goes through it). */
  accounting: Accounting;
  /** Hash worker threads allowed (SyncTuning.hashWorkers). */
  hashWorkers: number;
  /** The stall window (tuning.stallTimeoutMs): a body slower than MIN_BYTES_PER_SECOND over it is aborted. Default 30 s. */
  stallMs?: number;
}

/** The file failed for good (404, hash never matching...): reported, the sync goes on. */
export class FileFailedError extends Error implements CodedError {
  constructor(
    message: string,
    readonly failureCode: FailureCode,
  ) {
    super(message);
    this.name = 'FileFailedError';
  }
}

/** The set folder led outside DEST (swapped for a link) when the file was to be committed (the destination's EscapeError). */
export class FolderEscapeError extends FileFailedError {
  constructor(message: string) {
    super(message, 'escaped');
    this.name = 'FolderEscapeError';
  }
}

// The one event stream of a sync, shared by both processes (types only: no Node or Electron).
// The engine emits these; the CLI (terminal display and --json) and the desktop app (batched
// over IPC) consume the same values. Plain data only: no API key, no signer name, nothing that
// may not cross to the renderer.

export type FileState = 'queued' | 'downloading' | 'retrying' | 'verified' | 'up_to_date' | 'failed';

/**
 * Why a file or set failed, or why a file is being retried: stable machine-readable words for
 * scripts (`--json`) and for the window's plain words, which are chosen by code, never by
 * matching the English reason (docs/contracts.md lists them). The reason text stays the
 * human detail and may be reworded at any time; a code is only ever added, never renamed.
 */
export type FailureCode =
  /** 404: the file or set is no longer served (its set left accepted, or was removed). */
  | 'not_served'
  /** The body never matched the listing's SHA-256 (discarded after several tries). */
  | 'hash_mismatch'
  /** The service sent more bytes than the listing's size_bytes. */
  | 'oversize'
  /** 401: the API key was refused. */
  | 'auth'
  /** 403: the key may not read this. */
  | 'forbidden'
  /** 429 until the retries ran out. */
  | 'rate_limited'
  /** 5xx until the retries ran out. */
  | 'server_error'
  /** The service's TLS certificate was not accepted. */
  | 'tls'
  /** No bytes, or under 1 KiB/s, for a whole stall window, until the retries ran out. */
  | 'stalled'
  /** More than 4x the file's size was received without completing it. */
  | 'unstable'
  /** The connection broke (reset, refused, ended early, range answers that do not fit). */
  | 'connection'
  /** A folder of the dataset was replaced by a link leading out of it. */
  | 'escaped'
  /** The service's record or answer breaks the API contract (bad name, id, collision, malformed answer). */
  | 'bad_listing'
  /** The dataset's disk is full. */
  | 'disk_full'
  /** The dataset (or consents) destination may not be written. */
  | 'not_writable'
  /** Another error of the local file system or the destination store. */
  | 'storage'
  /** Nothing above: the reason says what happened. */
  | 'unknown';

export interface SyncOptions {
  baseUrl: string;
  apiKey: string;
  collectionId: number;
  dest: string;
  /** Defaults to the sibling folder `<dest>.consents` (for `s3://BUCKET/PREFIX`: `s3://BUCKET/PREFIX.consents`). A folder or an s3:// prefix. */
  consentsDir?: string;
  /**
   * For a bucket destination (`dest` = `s3://BUCKET/PREFIX`): the S3 endpoint (CLI --s3-endpoint),
   * else AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL, else AWS. Credentials and region come from
   * the AWS SDK's default chain unless the caller injects the destination (the desktop app).
   */
  s3Endpoint?: string;
  /** 1..16, default 4. */
  concurrency?: number;
  excludeGold?: boolean;
  /** Ignore the watermark and walk every accepted set; report local sets no longer served. */
  full?: boolean;
  /** Aborting leaves partial downloads in place; the next sync resumes them. */
  signal?: AbortSignal;
  /**
   * Repair (repair.ts): stop trusting these files (paths relative to DEST that verify found missing
   * or changed), skip the page walk and sync exactly their sets (GET /sets/:id); the watermark stays.
   */
  repair?: { files: string[] };
  /**
   * The subset (docs/contracts.md §2 `--slots`): the files of these slot keys only. Absent: as
   * remembered for this destination; null: every slot (`--slots all`). Remembered until given again.
   */
  slots?: string[] | null;
  /** `--groups`: the sets with a participant whose quota_group.value is listed; absent/null as for slots. */
  groups?: string[] | null;
  /** Total download rate cap across transfers in bytes per second (CLI `--bwlimit`); absent or 0 = no limit. */
  bwlimitBytesPerSecond?: number;
  /** Timing knobs (added by the engine engineer); defaults suit real use, tests shorten them. */
  tuning?: SyncTuning;
}

/** Added by the engine: retry and watchdog timing. All optional. */
export interface SyncTuning {
  /** First retry delay; doubles per attempt with jitter, capped at 30 s. Default 1000. */
  retryBaseMs?: number;
  /** Attempts per request or transfer before giving up (retryable failures). Default 6. */
  maxAttempts?: number;
  /** A transfer with no bytes for this long is aborted and retried. Default 30000. */
  stallTimeoutMs?: number;
  /** Interval of `progress` events. Default 250. */
  progressIntervalMs?: number;
  /** Worker threads hashing large files; 0 = main thread only. Default: 0 below 4 cores, else cores − 2 (max 4). */
  hashWorkers?: number;
}

/**
 * The identity of a file in the event stream: its set and its file id (one file id may be in two
 * sets). The window's Files table keys its rows by it, and the app's batchers
 * (src-main/app/pending-events.ts) keep one event per key, so both must agree on it.
 */
export function fileKey(file: { setId: number; fileId: number }): string {
  return `${file.setId}/${file.fileId}`;
}

export type SyncEvent =
  /** `consentsDir`: the real path the consent records go to (a link given or defaulted to is resolved once, at the start). */
  | { type: 'start'; collectionId: number; dest: string; consentsDir?: string; full: boolean; watermark: string | null }
  | { type: 'collection'; collectionId: number; title: string; acceptedSets: number }
  /** `code`: on a failed set, why (its first failure's code). */
  | { type: 'set'; setId: number; state: 'discovered' | 'complete' | 'failed' | 'skipped_gold' | 'skipped_subset' | 'not_served' | 'withdrawn'; files: number; isGold: boolean; reason?: string; code?: FailureCode }
  /** `code`: on a failed or retrying file, why (FailureCode); `reason` is the human detail. */
  | { type: 'file'; setId: number; fileId: number; path: string; sizeBytes: number; state: FileState; bytesDone?: number; attempt?: number; reason?: string; code?: FailureCode }
  /**
   * The media check of one file (docs/contracts.md §1, media.csv): `rules` and `listing` as in
   * media.csv, `problems` the same findings in plain words. `probed`: checked in this sync; false
   * for a file checked before whose recorded problem is said again.
   */
  | { type: 'media'; setId: number; path: string; rules: string; listing: string; problems: string[]; probed: boolean }
  | ProgressEvent
  | { type: 'warning'; message: string }
  | { type: 'summary'; summary: SyncSummary };

/**
 * What a sync is doing. `listing`: walking the pages of accepted sets (downloads run
 * meanwhile); `checking`: checking the files on disk, or hashing the bytes held by partial
 * downloads before resuming them; `downloading`: transfers run (every set is listed, when it is
 * the event's `phase`); `retrying`: the page walk waits to try again (see ProgressEvent.retry);
 * `checking_media`: every transfer has ended and the media check's last probes run (see
 * ProgressEvent.mediaLeft); `writing_manifest`: the dataset index and the state are written.
 */
export type SyncPhase = 'checking' | 'listing' | 'downloading' | 'retrying' | 'checking_media' | 'writing_manifest';

/**
 * Aggregate progress, at most 4 a second (and one every 2 s while nothing moves). Every count
 * and total only grows and `fraction` never falls, from the first event to the last.
 */
export interface ProgressEvent {
  type: 'progress';
  /** What the walk (or, once every set is listed, the transfers) is doing; `phases` says everything going on. */
  phase: SyncPhase;
  /**
   * Everything the sync is doing now, `phase` first: listing and downloading overlap (the walk is
   * paced by the transfers), so a walk with transfers in flight is `['listing', 'downloading']`
   * (`['listing', 'checking']` while every transfer hashes a part file; `['retrying', 'downloading']`
   * while the walk backs off). Always sent by this engine; readers of older events fall back to `[phase]`.
   */
  phases?: SyncPhase[];
  /** True while the sync is paused (engine PauseGate): nothing is received, partial files are kept. */
  paused: boolean;
  /** Sets finished (complete, failed, skipped) plus, on an incremental sync, the accepted sets unchanged since the last one. */
  setsDone: number;
  /** The collection's accepted sets (known before the first page), grown by sets fetched again or accepted meanwhile. */
  setsTotal: number;
  /** Bytes of files to download that are done: received, held by a resumed part file, adopted, or given up (failed). */
  bytesDone: number;
  /** Sizes of the files this sync downloads, as far as listed so far (final once `estimated` is false). */
  bytesTotal: number;
  filesDone: number;
  /** Files this sync downloads, as far as listed so far (final once `estimated` is false). */
  filesTotal: number;
  /**
   * True while sets are still being listed: the totals below are estimates (and bytesTotal and
   * filesTotal are partial). False from the event on that follows the end of the listing.
   * The three estimate fields are always sent by this engine (older events lack them).
   */
  estimated?: boolean;
  /**
   * The best known total of bytes to download: while listing, `bytesTotal` plus the sets still
   * to list at the average of the sets listed so far (it may move either way); null until a
   * set is listed. Equal to `bytesTotal` once `estimated` is false.
   */
  bytesTotalEstimate?: number | null;
  /** The same for files: `filesTotal` plus the sets still to list at the average so far; null until a set is listed. */
  filesTotalEstimate?: number | null;
  /**
   * 0..1, the one progress figure (bar and percentage) for the app and the CLI: bytes done of
   * `bytesTotalEstimate` while listing (the share of the sets to walk that are done while no
   * byte to download is known), then the remaining bytes (files when no bytes remain) from where
   * the listing left it. Never decreases.
   */
  fraction: number;
  /** Received bytes over the last 5 s of unpaused time (held bytes of a resume are not received); 0 while paused. */
  bytesPerSecond: number;
  /**
   * Seconds left at that rate for the bytes left of `bytesTotalEstimate`. Null until meaningful:
   * at least 2 s of (unpaused) transfer, 1 % done, a non-zero rate, and not paused.
   */
  etaSeconds: number | null;
  /** Bytes received again because a download had to start over (a 200 answer to a resume, a hash mismatch, a 416). */
  bytesRedownloaded: number;
  /** Present while phase is `checking_media`: the files whose media check has not ended yet. */
  mediaLeft?: number;
  /** Present while phase is `retrying`: the walk's next attempt (2..of), the attempts allowed, whole seconds until it starts (a countdown). */
  retry?: { attempt: number; of: number; inSeconds: number };
  /**
   * Downloads in flight; `bytesPerSecond` is that file's own received rate since its first byte,
   * over at most the last 5 s of unpaused time (0 while paused).
   */
  active: Array<{ fileId: number; path: string; bytesDone: number; sizeBytes: number; bytesPerSecond: number }>;
}

export interface SyncSummary {
  collectionId: number;
  dest: string;
  /** Real path of the consents folder; absent when the sync stopped before resolving it (bad options). */
  consentsDir?: string;
  sets: number;
  setsComplete: number;
  setsFailed: number;
  setsNotServed: number[];
  /** Sets that left the dataset in this sync (left `accepted`, or fell out of the subset): moved to DEST.withdrawn/<set_id>/. */
  withdrawnSets: number;
  filesDownloaded: number;
  filesUpToDate: number;
  filesFailed: number;
  bytesDownloaded: number;
  bytesHashed: number;
  requests: number;
  failures: Array<{ setId: number; fileId?: number; path?: string; reason: string; code: FailureCode }>;
  /** Files of the dataset whose `rules` or `listing` in media.csv is not `ok` (unprobed and unreadable ones included). Always sent by this engine; absent from summaries of older versions (history). */
  mediaProblems?: number;
  /** Of mediaProblems, the files not checked yet (`unprobed` in media.csv: the check was off, or the sync ended first): not known to break a rule. */
  mediaUnprobed?: number;
  /**
   * The check of every recorded file at the start of the sync (regular file, size and mtime as
   * verified; nothing hashed). Files missing or changed are downloaded again in the same sync.
   */
  diskCheck?: { files: number; missing: number; changed: number; durationMs: number };
  /**
   * Sets of the dataset with a participant whose consent is null (participants.csv `missing`):
   * their files are complete, but not every participant signed. Absent when the sync stopped
   * before the dataset files were written.
   */
  consentMissingSets?: number;
  /** A bucket destination's requests during the sync (its LISTs, bytes sent and read back); absent for a folder. */
  storage?: StorageStats;
  watermark: string | null;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** 0 all verified, 1 some failed, 2 usage/config, 3 auth, 4 unreachable (docs/contracts.md §2). */
  exitCode: 0 | 1 | 2 | 3 | 4;
  cancelled: boolean;
  /** Set when the sync stopped as a whole (bad key, unreachable service, lock held, DEST not writable...). */
  fatal?: { kind: string; message: string };
}

/** What a sync asked of an object store (summary.storage). */
export interface StorageStats {
  requests: number;
  listRequests: number;
  bytesUploaded: number;
  bytesDownloaded: number;
}

export interface VerifyReport {
  dest: string;
  filesChecked: number;
  ok: number;
  missing: string[];
  changed: string[];
  extra: string[];
  bytesHashed: number;
}

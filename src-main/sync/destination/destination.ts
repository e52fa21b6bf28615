// Where a dataset lives (docs/contracts.md §7, "Where the engine is going"; rclone's Fs/Object): each
// backend is a folder of its own under destination/ (local/: a folder; s3/: an S3-compatible
// bucket; memory/: in memory, for tests) and registers itself in the registry (registry.ts,
// all.ts), which is how the engine parses, names and opens one. The engine — plan, transfer,
// dataset files, verify, repair — reaches files and objects only through this interface; every
// POSIX detail (O_NOFOLLOW, symlink and escape checks, rename, partial files) belongs to the
// folder implementation, every S3 detail (multipart, ListParts, ETags) to the bucket one.
// test/destination/contract.ts is one suite every backend passes (rclone's fstests); the
// optional members below are capabilities it tests where a backend declares them.
//
// Keys are relative and '/'-separated, as paths appear in manifest.csv: 'collection.json',
// 'sets/12/set.json', 'sets/12/set_12_slot_01.mp4', '.dataset-sync/state.json'. A key never
// starts with '/', never has an empty, '.' or '..' segment; server-given parts were validated
// (names.ts) before they became keys, and every implementation refuses a key that breaks
// these rules (DestinationError 'bad_key') rather than trusting it.
import type { StorageStats } from '../../../src-shared/sync-events';
import type { FolderSpec } from './local/spec';
import type { MemorySpec } from './memory/spec';
import type { BucketSpec } from './s3/naming';

/** What a destination knows of one object. */
export interface ObjectInfo {
  key: string;
  size: number;
  /**
   * Changes whenever the object's bytes may have changed, and is cheap to read for every object
   * at once: a folder's mtime in ms (as the decimal string of the number), a bucket's ETag. The
   * engine records it when a file is verified; a sync compares it (docs/contracts.md §4: "the same size and
   * mtime") and hashes nothing.
   */
  stamp: string;
  /**
   * The SHA-256 (hex) the destination vouches for without reading the body: a bucket object's
   * user metadata `sha256`, which this client sets only on bodies whose hash matched. Absent
   * for folders (a file's hash is known only by reading it).
   */
  sha256?: string;
}

export interface DestinationCapabilities {
  /** freeSpace() answers a number (a folder's disk); a bucket has no free space to report. */
  readonly freeSpace: boolean;
  /**
   * The dataset as local files (Show in folder, media probing and playback read them in place):
   * the folder's absolute path; absent for a bucket.
   */
  readonly localRoot?: string;
  /** The store checks a SHA-256 sent with a body (x-amz-checksum-sha256) by itself; when false the client checks. */
  readonly checksSha256: boolean;
}

/** How much of an object read() streams. */
export interface ReadOptions {
  start?: number;
  chunkBytes?: number;
}

/** What the engine expects an upload to become. */
export interface ExpectedBody {
  size: number;
  /** Lowercase hex: the upload is committed only when the bytes written hash to it. */
  sha256: string;
  /**
   * Names the held bytes of this download across attempts and restarts (the folder's part file
   * `<set>-<file>-<sha256>.part`, the bucket's multipart upload), so two transfers never share
   * one and an edited file never resumes on old bytes. Made of validated ids and the hash.
   */
  resumeKey: string;
}

/**
 * One resumable upload of one object. Bytes are written in order (position = bytes written so
 * far, or 0 after restart()); at most one write is in flight. Nothing is visible under the key
 * until commit(), which the engine calls only after the SHA-256 of every byte matched.
 */
export interface Upload {
  /** Bytes held from an earlier attempt or sync when the upload was opened (0 for a new one). */
  readonly held: number;
  /** The held bytes, in order, for the engine to hash before it asks the service for the rest. */
  readHeld(): AsyncIterable<Buffer>;
  /** Appends `chunks` at `position`; resolves with the bytes written. */
  write(chunks: readonly Buffer[], position: number): Promise<number>;
  /** Drops every byte held (a 200 answer to a range request, a hash mismatch); later writes start at 0. */
  restart(): Promise<void>;
  /**
   * Makes the bytes written visible under the key, atomically (a folder: rename after the
   * escape checks; a bucket: complete the multipart upload or PUT, with user metadata sha256).
   * Resolves with the committed object's info (its stamp is what the engine records).
   */
  commit(): Promise<ObjectInfo>;
  /**
   * Optional: true when commit() only writes to this machine's disk (a folder's upload), so it
   * needs no network: the engine lets the next download start while it commits. Absent: the
   * commit is a request to the store (a bucket's PUT or CompleteMultipartUpload).
   */
  readonly commitsLocally?: boolean;
  /** Lets go without committing: the bytes held stay for a later resume. */
  close(): Promise<void>;
  /** Lets go and removes the bytes held (the file was given up). */
  discard(): Promise<void>;
}

/** A recorded object the engine expects to find (disk check; docs/contracts.md §4). */
export interface ExpectedObject {
  key: string;
  size: number;
  stamp: string;
}

/** Why a recorded object does not pass: the words go into the `file` event's reason. */
export type PresenceProblem = { key: string; problem: 'missing' | 'changed' | 'linked'; detail?: string };

export interface DestinationLock {
  release(): Promise<void>;
}

/** Failures of a destination in the user's words; `kind` decides the exit code (outcome.ts). */
export type DestinationErrorKind =
  /** Another sync holds the destination (exit 2, `locked`). */
  | 'locked'
  /** Not writable, disk full, bucket missing, no permission, bad credentials, not an S3 endpoint... (exit 2). */
  | 'config'
  /** A key or path that breaks the key rules, or a link leading out of the destination. */
  | 'bad_key'
  /** The store could not be reached or kept failing (exit 4). */
  | 'unreachable'
  /** Anything else local (exit 2 as today's local_fs). */
  | 'io';

export class DestinationError extends Error {
  constructor(
    readonly kind: DestinationErrorKind,
    message: string,
    /** For folder errors: the errno code (ENOSPC...). */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'DestinationError';
  }
}

/** A folder of the set swapped for a link when a file was to be committed: the file fails, its set's entries are checked again. */
export class EscapeError extends DestinationError {
  constructor(message: string) {
    super('bad_key', message);
    this.name = 'EscapeError';
  }
}

export interface Destination {
  /** The backend it belongs to, as its specs name it ('folder', 'bucket', 'memory'): for messages and tests; the engine decides by capabilities. */
  readonly kind: DestinationSpec['kind'];
  /** What the user sees: the folder's absolute path, or `s3://bucket/prefix` (with the endpoint when not AWS). Never a secret. */
  readonly label: string;
  readonly capabilities: DestinationCapabilities;
  /**
   * A local folder where the engine keeps its state for this destination (set records, part
   * files, history): DEST/.dataset-sync for a folder; for a bucket a folder of this machine's
   * (under the user's state directory, named from endpoint, bucket and prefix). What another
   * machine needs (the binding to a service and collection, the watermark) the engine also
   * writes into the destination itself under '.dataset-sync/'; set records lost with a machine
   * are rebuilt through verifiedCopy() without downloading the files again.
   */
  readonly stateDir: string;

  /**
   * Makes the destination usable and says so in words when it is not: a folder is created
   * (and its state and partial folders, each part checked to be a real folder); a bucket is
   * checked to exist and accept writes. Returns warnings to show (e.g. a consents folder other
   * users can list). Throws DestinationError.
   */
  prepare(): Promise<string[]>;
  /** One sync per destination at a time; throws DestinationError('locked') naming the holder. */
  lock(): Promise<DestinationLock>;
  /**
   * Optional: true when prepare() found the destination holding no object (a consents folder made
   * by this sync, or empty): an object there now was written since, by this sync or another one
   * sharing the destination. The engine then takes a consent record as not stored without asking
   * (consents.ts), which at worst fetches and writes a record again. Absent or false: ask stat().
   */
  readonly foundEmpty?: boolean;

  /** The object at `key`, or null when there is none (a folder: a link or anything but a regular file is `changed`, see stat's contract in local-folder.ts). */
  stat(key: string): Promise<ObjectInfo | null>;
  /** Every object whose key starts with `prefix` ('' = all), recursively, in key order. */
  list(prefix: string): AsyncIterable<ObjectInfo>;
  /**
   * The object's bytes, streamed; regular files only (a folder never follows a link or opens a
   * FIFO). Throws DestinationError when absent. `start`: from that byte on (a bucket asks a Range),
   * so a reader of a container's headers skips media data; `chunkBytes`: the size of the chunks
   * it would rather have (a hint: small for headers).
   */
  read(key: string, options?: ReadOptions): AsyncIterable<Buffer>;
  /** Small text objects (state, collection.json); null when absent. */
  readText(key: string): Promise<string | null>;
  /**
   * Optional (added for the no-op's latency; a folder offers it, a bucket does not): the text of
   * a small object read synchronously, without the lock; null when absent or unreadable. The
   * engine peeks at '.dataset-sync/state.json' before its first round trip (a process's first
   * asynchronous read costs ~10 ms of thread-pool start-up); without it, it awaits readText.
   */
  peekText?(key: string): string | null;
  /**
   * Writes a whole object atomically (temp + rename; a PUT): readers see the old bytes or the
   * new, never a mix. `private`: readable by the owner only (consent records: 0600). A body
   * given as an iterable is streamed (manifest.csv at a million rows).
   */
  writeAtomic(key: string, body: string | Buffer | AsyncIterable<string | Buffer>, options?: { private?: boolean }): Promise<ObjectInfo>;
  /**
   * Optional (a folder offers it; a bucket has no append, so the engine writes the object whole):
   * writes atomically a new object made of the object now at `key` followed by `tail`, provided
   * that object is still the one described by `expect` (size and stamp); null when it is not (the
   * caller then writes it whole). Readers see the old bytes or the new, never a mix. `keep`
   * (default: all) keeps only the object's first `keep` bytes before the tail.
   */
  extendAtomic?(key: string, expect: { size: number; stamp: string }, tail: string | Buffer, keep?: number): Promise<ObjectInfo | null>;
  /**
   * Optional, with extendAtomic: a hint that the objects at `keys` will likely be extended later
   * in this sync (the service listed sets after the watermark). A folder begins copying them now,
   * one after the other, while the sync checks the folder, so the extension at the end only appends
   * and renames. Never throws; copies not used are removed by close().
   */
  warmExtensions?(keys: readonly string[]): void;
  /** Removes the object; absent is fine. */
  remove(key: string): Promise<void>;
  /**
   * Moves the object at `key` to `targetKey` of `target` (withdrawn data: DEST.withdrawn,
   * PREFIX.withdrawn/, the consents' quarantine): a folder renames into a sibling folder (copy
   * and delete across file systems), a bucket copies server-side within the same store
   * (CopyObject, then DeleteObject); between other pairs the bytes are streamed across, then
   * removed. The target key is replaced when present. False when there was nothing at `key`.
   */
  move(key: string, target: Destination, targetKey: string): Promise<boolean>;
  /** Removes every object of the destination (purge-withdrawn on DEST.withdrawn): a folder is removed with all it holds. */
  removeAll(): Promise<void>;

  /** Opens (or resumes) the upload of a downloaded body that becomes `key` on commit. */
  openUpload(key: string, expect: ExpectedBody): Promise<Upload>;
  /**
   * Optional: an upload for a new small body opened without waiting (nothing to list, read or
   * resolve first), or null when it cannot be (then openUpload). It holds nothing (held 0), and
   * once committed it holds nothing either: close() is needed only when it was not committed.
   * Lets the engine's first attempt of a small file skip a round of promises (issue 21).
   */
  openUploadNow?(key: string, expect: ExpectedBody): Upload | null;
  /**
   * An object already at `key` that holds exactly these bytes, or null: a folder hashes a
   * regular file of the right size; a bucket trusts its own `sha256` metadata (HEAD), so state
   * lost or made on another machine is rebuilt without downloading the files again. It looks
   * for copies that predate this sync: a folder answers null at once in a set folder it made
   * while open (nothing was there; the caller downloads, as for any null).
   */
  verifiedCopy(key: string, expect: { size: number; sha256: string }): Promise<ObjectInfo | null>;
  /**
   * Checks recorded objects as cheaply as the store allows (a folder: one lstat per file and per
   * set folder, off the main thread where it can; a bucket: one LIST per 1,000 keys) and yields
   * the ones that are missing or changed.
   */
  checkPresence(expected: Iterable<ExpectedObject>): AsyncIterable<PresenceProblem>;

  /** Free bytes where the dataset is stored; null when unknown (a bucket). */
  freeSpace(): Promise<number | null>;
  /** Requests made so far (a bucket's; absent for a folder): the sync's summary reports them. */
  stats?(): StorageStats;
  /** Aborts uploads of this destination left open by a killed sync (not the resumable ones it still holds for resume). */
  cleanUp?(): Promise<void>;
  /**
   * Optional: true when the dataset may be synced from several machines (a bucket), whose set
   * records (in their own stateDir) this machine lacks. Its head then carries a generation, and a
   * head this machine did not write last is not trusted for the watermark (state.ts
   * recordsMatchHead). Absent or false: one machine's (a folder, the in-memory destination).
   */
  readonly sharedAcrossMachines?: boolean;
  close(): Promise<void>;
}

/**
 * The portable move (Destination.move between stores that cannot move natively): the bytes are
 * streamed into `target` (written atomically), then the source is removed.
 */
export async function copyThenRemove(source: Destination, key: string, target: Destination, targetKey: string): Promise<boolean> {
  if ((await source.stat(key)) === null) return false;
  await target.writeAtomic(targetKey, source.read(key));
  await source.remove(key);
  return true;
}

/** Secrets for a bucket, held in memory only (the app reads them from the keychain); absent = the AWS SDK's default chain. */
export interface BucketCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * How a destination is named in settings and on the command line; no secret is part of it. Each
 * backend declares its own in its folder; `kind` says which backend serves it (registry.ts).
 */
export type DestinationSpec = FolderSpec | BucketSpec | MemorySpec;

/** The two destinations beside a dataset (docs/contracts.md §1): its consents and what left it. */
export type SiblingSuffix = '.consents' | '.withdrawn';

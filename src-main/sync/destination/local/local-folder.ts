// A dataset in a local folder: the Destination (destination.ts) the engine has always written
// to, as one implementation of the seam (the folder backend, backend.ts). Every POSIX detail lives
// in the other files of this folder, local/ (with s3/ and state/ the only places under
// src-main/sync/ allowed to import node:fs, eslint.config.js): O_NOFOLLOW part files and
// reads, folders made part by part and checked with lstat, atomic temp + rename writes, the lock,
// the escape checks around a commit's rename. This class maps keys to paths and composes them.
//
// Layout (docs/contracts.md §1): DEST/<key>; engine state in DEST/.dataset-sync (stateDir): part files
// `partial/<resumeKey>.part`, temp files of atomic writes in `tmp/` (emptied when the lock is
// taken), the previous versions of the extended index files in `replaced/` (removed while the next
// sync runs: local/replaced.ts), `lock`, `state.db` (the engine's records and head state).
//
// In its consents role (createLocalFolder(dir, { consents: { dataset } })) the folder is the
// consents folder beside the dataset: its path is resolved once to its real path (links followed
// then, never again), refused when that is the dataset folder or inside it, made 0700 when
// created (an existing folder keeps its mode, with a warning when others can list it), every
// object written 0600 with its temp file beside it (removed by a later prepare once its writer
// is gone).
import path from 'node:path';
import type {
  Destination,
  DestinationCapabilities,
  DestinationLock,
  ExpectedBody,
  ExpectedObject,
  ObjectInfo,
  PresenceProblem,
  ReadOptions,
  Upload,
} from '../destination';
import { copyThenRemove, DestinationError } from '../destination';
import { checkKey, checkPrefix } from '../key-rules';
import { ensureConsentsDir, resolveConsentsDir } from './consents-dir';
import { extendAtomicFile, WarmCopies, writeAtomicFile } from './atomic-writes';
import { keyPath, peekTextKey, readKey, readTextKey, statKey, verifiedFile } from './key-reads';
import { listKeys } from './key-listing';
import { freeSpaceOf, moveKey, removeKey, removeTree } from './key-moves';
import { lstatOnWriterThread, presenceProblems } from './presence-check';
import { FolderChecks } from './folder-checks';
import { acquireLock } from './lock';
import { fileWriter, fileWriterWanted, type FileWriter } from './file-writer';
import { commitPaths, pathUnder } from './key-paths';
import { tempPathFor } from './atomic';
import { MEMORY_UPLOAD_MAX_BYTES, MemoryUpload } from './memory-upload';
import { removeReplacedVersions } from './replaced';
import { HeldParts, linkedAfterRename, LocalUpload, whereLinkLeads } from './part-upload';
import { ensureRealDir, prepareDatasetFolder, realPathNow, resetScratchDir, unsafeFolderError } from './safe-dirs';
import { partialDir, replacedDir, scratchDir, STATE_DIR } from '../../layout';

export { LINKED_STAMP, NOT_REGULAR_STAMP } from './key-reads';

export interface LocalFolderOptions {
  /** The consents role: `dataset` is the dataset folder's path, which this folder must not be or be inside (null: the dataset is in a bucket). */
  consents?: { dataset: string | null };
}

/** A resume key names a file in partial/: validated ids and a hash, nothing that could leave the folder. */
const RESUME_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** verifiedCopy's answer for a folder this sync made: one settled promise, shared. */
const NO_COPY: Promise<ObjectInfo | null> = Promise.resolve(null);

/** How many folders made by this destination verifiedCopy remembers (far more than the sets a sync has in flight). */
const MADE_DIRS_KEPT = 4096;

export class LocalFolder implements Destination {
  readonly kind = 'folder' as const;
  readonly label: string;
  readonly capabilities: DestinationCapabilities;
  readonly stateDir: string;
  /** The folder's real path, known once prepared (commit's escape checks compare against it). */
  private realRoot: string | undefined;
  /** Folders made and checked (lstat, part by part) while this destination is open; see ensureParent. */
  private readonly checkedDirs = new Set<string>();
  /**
   * Key folders (set folders) this open destination created, the latest MADE_DIRS_KEPT: nothing in
   * them predates this sync, so verifiedCopy has no earlier copy to find there and skips its lstat
   * (one per file of a new set). Bounded: only the sets in flight matter.
   */
  private readonly madeDirs = new Set<string>();
  private readonly consentsRole: boolean;
  /** The part files in partial/, listed once while this destination is open. */
  private readonly heldParts: HeldParts;
  /** The lstat calls of the commits' folder checks, shared by commits asking at the same moment. */
  private readonly folderChecks = new FolderChecks();
  /** Set by a consents folder's prepare (see foundEmpty). */
  private emptyWhenPrepared = false;
  /** DEST/.dataset-sync/tmp and partial/, made into paths once (small files ask for them per file). */
  private readonly scratch: string;
  private readonly partial: string;
  private readonly replaced: string;
  /** The removal of the versions earlier syncs kept in replaced/, begun when the lock is taken. */
  private removingReplaced: Promise<void> = Promise.resolve();
  /** Copies begun by warmExtensions, by key, not yet taken by extendAtomic. */
  private readonly warmCopies = new WarmCopies();
  /** Whether small files go through the file writer thread: decided when the folder is opened (DATASET_SYNC_FILE_WRITER=off turns it off), not read from the environment per file. */
  private readonly writerWanted = fileWriterWanted();

  /** `root`: an absolute path (createLocalFolder resolves it). */
  constructor(
    readonly root: string,
    options: { consentsRole?: boolean } = {},
  ) {
    this.label = root;
    this.consentsRole = options.consentsRole === true;
    this.stateDir = path.join(root, STATE_DIR);
    this.scratch = scratchDir(root);
    this.partial = partialDir(root);
    this.replaced = replacedDir(root);
    this.heldParts = new HeldParts(this.partial);
    this.capabilities = { freeSpace: true, localRoot: root, checksSha256: false };
  }

  async prepare(): Promise<string[]> {
    if (this.consentsRole) {
      const { warning, empty } = await ensureConsentsDir(this.root);
      this.realRoot = this.root;
      this.emptyWhenPrepared = empty;
      return warning ? [warning] : [];
    }
    this.realRoot = await prepareDatasetFolder(this.root);
    return [];
  }

  /**
   * A consents folder that held nothing but temp files when prepared (its prepare lists every
   * name anyway, to remove a killed sync's temp files): a first sync asks for no record before
   * fetching it (2 thread-pool calls per set saved). Always false for a dataset folder.
   */
  get foundEmpty(): boolean {
    return this.emptyWhenPrepared;
  }

  /**
   * Takes DEST/.dataset-sync/lock (lock.ts), then empties tmp/ (temp files a killed sync left
   * behind), begins the listing of partial/, and begins removing what replaced/ holds, neither
   * waited for: the sync goes on meanwhile, and the lock's release waits for the removal.
   */
  async lock(): Promise<DestinationLock> {
    const lock = await acquireLock(this.root);
    try {
      await resetScratchDir(this.root);
    } catch (e) {
      await lock.release().catch(() => undefined);
      throw e;
    }
    if (this.consentsRole) return lock;
    // Listed now that the lock is held, so the first downloads find the answer ready (openUploadNow).
    this.heldParts.begin();
    const removing = removeReplacedVersions(this.root);
    this.removingReplaced = removing;
    return {
      release: async () => {
        await removing;
        await lock.release();
      },
    };
  }

  /** See statKey (key-reads.ts): a link, FIFO or folder at the key, or a link on its way, has a stamp that never matches. */
  async stat(key: string): Promise<ObjectInfo | null> {
    checkKey(key);
    return statKey(this.root, key);
  }

  // list and read check the key when iterated, so a bad one rejects like any other failure.
  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    checkPrefix(prefix);
    yield* listKeys(this.root, prefix);
  }

  async *read(key: string, options?: ReadOptions): AsyncIterable<Buffer> {
    checkKey(key);
    yield* readKey(this.root, key, options);
  }

  async readText(key: string): Promise<string | null> {
    checkKey(key);
    return readTextKey(this.root, key);
  }

  /**
   * Not part of every destination (destination.ts `peekText`): a synchronous read of a small
   * object without the lock, for the engine's state peek before the first round trip.
   */
  peekText(key: string): string | null {
    checkKey(key);
    return peekTextKey(this.root, key);
  }

  async writeAtomic(key: string, body: string | Buffer | AsyncIterable<string | Buffer>, options: { private?: boolean } = {}): Promise<ObjectInfo> {
    checkKey(key);
    const mode = this.consentsRole || options.private === true ? 0o600 : 0o644;
    if (!this.consentsRole && key.includes('/') && (typeof body === 'string' || Buffer.isBuffer(body)) && Buffer.byteLength(body) <= MEMORY_UPLOAD_MAX_BYTES) {
      const writer = this.writerWanted ? fileWriter() : null;
      if (writer !== null) return this.writeSmallInFolder(writer, key, body, mode);
    }
    await this.ensureParent(key);
    // Temp files of the dataset go to .dataset-sync/tmp (a crash leaves no debris in sets/); a
    // consent record's beside it, where a later prepare finds it by its writer's pid.
    const tmpDir = this.consentsRole ? this.root : this.scratch;
    const st = await writeAtomicFile(keyPath(this.root, key), body, mode, tmpDir, this.writerWanted);
    return { key, size: st.size, stamp: String(st.mtimeMs) };
  }

  /**
   * A small object in a key folder (a set's set.json): the folder is made, checked and the object
   * written in one message to the file writer thread, as a small download's commit is
   * (memory-upload.ts): each folder of the key lstat-checked before and after the rename (a link
   * found before refuses the write; after, the object went through it and the write fails), the
   * key's own folder made when the rename finds it missing. No thread-pool call per set.
   */
  private async writeSmallInFolder(writer: FileWriter, key: string, body: string | Buffer, mode: number): Promise<ObjectInfo> {
    const realRoot = await this.realRootNow();
    const parts = key.split('/');
    const dirParts = parts.slice(0, -1);
    const { folders, target } = commitPaths(realRoot, dirParts, parts.at(-1)!);
    const result = await writer.put({ tmp: tempPathFor(target, this.scratch), target, data: body, mode, folders, makeFolder: true });
    if ('linked' in result) {
      // Found before: refused as ensureRealDir refuses it (the sync stops naming it). Found after
      // the rename (swapped meanwhile): the object went through the link, and this write fails.
      if (result.when === 'before') throw await unsafeFolderError(result.linked);
      throw linkedAfterRename(path.join(await whereLinkLeads({ realRoot, dirParts }, result.linked), parts.at(-1)!));
    }
    if (result.madeFolder) this.rememberMade(path.dirname(keyPath(this.root, key)));
    return { key, size: result.size, stamp: String(result.mtimeMs) };
  }

  /** The dataset's index files grow by appended rows (dataset.ts): a copy of the file (a reflink where the file system has them) plus the tail, then rename. */
  async extendAtomic(key: string, expect: { size: number; stamp: string }, tail: string | Buffer, keep?: number): Promise<ObjectInfo | null> {
    checkKey(key);
    if (this.consentsRole) return null; // consent records are written whole
    const warm = this.warmCopies.take(key);
    // The versions the last sync kept go first: a copy never needs room they still hold.
    await this.removingReplaced;
    const st = await extendAtomicFile(keyPath(this.root, key), expect, tail, 0o644, this.scratch, keep, warm && (await warm), this.replaced);
    return st === null ? null : { key, size: st.size, stamp: String(st.mtimeMs) };
  }

  /** Copies the files at `keys` into tmp/ for extendAtomic, after the removal of what replaced/ holds, while the sync goes on (atomic-writes.ts WarmCopies). */
  warmExtensions(keys: readonly string[]): void {
    if (this.consentsRole) return;
    this.warmCopies.begin(this.root, keys, this.scratch, this.removingReplaced);
  }

  async remove(key: string): Promise<void> {
    checkKey(key);
    await removeKey(this.root, key);
  }

  async removeAll(): Promise<void> {
    this.checkedDirs.clear();
    this.madeDirs.clear();
    await removeTree(this.root);
  }

  /** Another folder: a rename (moveKey); a bucket: the bytes streamed across. */
  async move(key: string, target: Destination, targetKey: string): Promise<boolean> {
    checkKey(key);
    checkKey(targetKey);
    if (target instanceof LocalFolder) return moveKey(this.root, key, target.root, targetKey);
    return copyThenRemove(this, key, target, targetKey);
  }

  /**
   * A small download's MemoryUpload when nothing needs waiting for: DEST's real path is known, and
   * the listing of partial/ was read and holds no part file for it. Else null (openUpload).
   */
  openUploadNow(key: string, expect: ExpectedBody): Upload | null {
    this.checkUpload(key, expect);
    const realRoot = this.realRoot;
    if (realRoot === undefined) return null;
    const writer = this.smallWriter(expect.size);
    if (writer === null || this.heldParts.holdsNow(expect.resumeKey) !== false) return null;
    return this.memoryUpload(key, expect, realRoot, writer);
  }

  /**
   * A part file in partial/ (LocalUpload), or for a small download without one, the bytes in
   * memory written whole at commit by the file writer thread (MemoryUpload: issue #21).
   */
  async openUpload(key: string, expect: ExpectedBody): Promise<Upload> {
    this.checkUpload(key, expect);
    const realRoot = await this.realRootNow();
    const writer = this.smallWriter(expect.size);
    if (writer !== null && !(await this.heldParts.has(expect.resumeKey))) return this.memoryUpload(key, expect, realRoot, writer);
    const parts = key.split('/');
    return LocalUpload.open({ key, partPath: this.partPathOf(expect.resumeKey), realRoot, dirParts: parts.slice(0, -1), name: parts.at(-1)! }, this.heldParts, this.folderChecks, expect);
  }

  /** Refuses a key, or a resume key that could name a file outside partial/, before any upload is opened. */
  private checkUpload(key: string, expect: ExpectedBody): void {
    checkKey(key);
    if (!RESUME_KEY.test(expect.resumeKey)) throw new DestinationError('bad_key', `The resume key ${JSON.stringify(expect.resumeKey)} cannot name a part file.`);
  }

  /** The file writer for a body small enough to be held in memory; null for a larger one, or when the writer is off or cannot start. */
  private smallWriter(size: number): FileWriter | null {
    return this.writerWanted && size <= MEMORY_UPLOAD_MAX_BYTES ? fileWriter() : null;
  }

  private partPathOf(resumeKey: string): string {
    return pathUnder(this.partial, `${resumeKey}.part`);
  }

  private memoryUpload(key: string, expect: ExpectedBody, realRoot: string, writer: FileWriter): MemoryUpload {
    const parts = key.split('/');
    // Built field by field, not spread from another object: a spread cost several us per file here.
    return new MemoryUpload(
      { key, partPath: this.partPathOf(expect.resumeKey), realRoot, dirParts: parts.slice(0, -1), name: parts.at(-1)!, tmpDir: this.scratch, resumeKey: expect.resumeKey },
      writer,
      this.heldParts,
    );
  }

  verifiedCopy(key: string, expect: { size: number; sha256: string }): Promise<ObjectInfo | null> {
    try {
      checkKey(key);
    } catch (e) {
      return Promise.reject(e as Error);
    }
    const file = keyPath(this.root, key);
    // A folder made in this sync held nothing before it: a copy written since is this sync's own.
    // Not async: a first sync asks this for every file, and the answer is known at once.
    if (this.madeDirs.has(path.dirname(file))) return NO_COPY;
    return verifiedFile(key, file, expect.size, expect.sha256);
  }

  checkPresence(expected: Iterable<ExpectedObject>): AsyncIterable<PresenceProblem> {
    return presenceProblems(this.root, expected, this.writerWanted ? lstatOnWriterThread : undefined);
  }

  async freeSpace(): Promise<number | null> {
    return freeSpaceOf(this.root);
  }

  async close(): Promise<void> {
    this.checkedDirs.clear();
    this.madeDirs.clear();
    await this.warmCopies.removeUnused(); // copies no extension took: hundreds of MB, not left for the next sync
  }

  /** DEST's real path: resolved by prepare, or once here when an upload comes first. */
  private async realRootNow(): Promise<string> {
    this.realRoot ??= await realPathNow(this.root);
    return this.realRoot;
  }

  /**
   * Makes the folders of `key` part by part, each checked to be a real folder (a symbolic link
   * planted inside DEST must never lead a write outside it). Folders above the key's own folder
   * are remembered for as long as the destination is open; the key's own folder is remembered
   * only at the top level: each set folder is written once per sync, so remembering those too
   * would only make memory grow with the set count.
   */
  private async ensureParent(key: string): Promise<void> {
    const parts = key.split('/').slice(0, -1);
    if (parts.length === 0) return;
    if (parts.length === 1) {
      await ensureRealDir(this.root, parts[0]!, this.checkedDirs);
      return;
    }
    const upper = await ensureRealDir(this.root, parts.slice(0, -1).join('/'), this.checkedDirs);
    await ensureRealDir(upper, parts.at(-1)!, undefined, (dir) => this.rememberMade(dir));
  }

  private rememberMade(dir: string): void {
    this.madeDirs.add(dir);
    if (this.madeDirs.size > MADE_DIRS_KEPT) this.madeDirs.delete(this.madeDirs.values().next().value!);
  }
}

/**
 * A folder destination at `dir` (resolved to an absolute path). With `consents`, the consents
 * folder for the dataset at `consents.dataset`: resolved to its real path now (throws
 * DestinationError 'config' when that is the dataset folder or inside it).
 */
export function createLocalFolder(dir: string, options: LocalFolderOptions = {}): LocalFolder {
  if (!dir) throw new DestinationError('config', 'No destination folder given.');
  if (options.consents) {
    let real: string;
    try {
      real = resolveConsentsDir(dir, options.consents.dataset);
    } catch (e) {
      throw new DestinationError('config', (e as Error).message);
    }
    return new LocalFolder(real, { consentsRole: true });
  }
  return new LocalFolder(path.resolve(dir));
}

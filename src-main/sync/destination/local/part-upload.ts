// The folder's Upload (destination.ts): a download's bytes go to a .part file under
// DEST/.dataset-sync/partial named by the resume key, and reach their final name only by rename
// after the engine found the SHA-256 right (transfer/). Moved here from transfer.ts with the
// part-file calls it held; what it guarantees is unchanged:
// - the part file is opened once per attempt with O_NOFOLLOW: a planted symlink (or folder, FIFO)
//   in its place is removed, never followed; its size is what a resume holds;
// - its mtime is taken with fstat before close, so the committed object's stamp costs no stat;
// - the set folder must still resolve to DEST's real path just before and just after the rename
//   (a folder swapped for a link mid-download would take the verified file outside DEST): if not,
//   commit throws EscapeError and the engine fails the file and checks its set again.
import { close, constants, createReadStream, fstat, ftruncateSync, open, promises as fs, rename, writev, type Stats } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { EscapeError, type ExpectedBody, type ObjectInfo, type Upload } from '../destination';
import { isFatalFsError, localFsError } from '../../local-errors';
import type { FolderChecks } from './folder-checks';
import { foldersDown } from './key-paths';

// Read and write: a resume hashes the held bytes through the same descriptor (never by path).
const OPEN_PART = constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW;
/** IOV_MAX is 1024 on Linux; stay well below it. */
const MAX_IOV = 512;

/**
 * File-system calls on a part file, every one on libuv's thread pool (issue 21: no synchronous
 * call per file on the event loop, whatever the file's size; a slow or stalled disk must never
 * freeze the app's window). The callback API wrapped once: no FileHandle object per file.
 */
const io = {
  open: (p: string, flags: number): Promise<number> => promisify(open)(p, flags, 0o644),
  fstat: promisify(fstat),
  close: promisify(close),
  rename: promisify(rename),
  writev: (fd: number, bufs: Buffer[], position: number): Promise<number> =>
    new Promise((resolve, reject) => writev(fd, bufs, position, (err, written) => (err ? reject(err) : resolve(written)))),
};

/** An open part file and its size; anything but a regular file at its path (a planted symlink, a folder) is removed, never followed. */
async function openPart(p: string): Promise<{ fd: number; held: number }> {
  // Usually there is no part file yet: O_EXCL creates a fresh regular file (never through a
  // symlink), so its size is 0 without an fstat. Anything already there takes the checked path below.
  try {
    return { fd: await io.open(p, OPEN_PART | constants.O_EXCL), held: 0 };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  for (let tries = 0; ; tries++) {
    let fd: number | undefined;
    try {
      fd = await io.open(p, OPEN_PART);
      const st = await io.fstat(fd);
      if (st.isFile()) return { fd, held: st.size };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (tries > 0 || (code !== 'ELOOP' && code !== 'EISDIR' && code !== 'ENXIO' && code !== 'EMLINK')) throw e;
    }
    if (fd !== undefined) await io.close(fd).catch(() => undefined);
    if (tries > 0) throw localFsError(Object.assign(new Error(`${p} is not a regular file`), { code: 'EEXIST' }), `open ${p}`);
    await fs.rm(p, { force: true, recursive: true });
  }
}

/**
 * The first folder between `realRoot` and `realRoot/<dirParts>` that is not a real folder (a
 * symbolic link, or anything but a folder), as its path; null when all are real folders, or one
 * is gone (the rename then fails or makes it again, and the check after the rename judges).
 * Each folder by an lstat that starts after this call, shared with other commits asking at the
 * same moment (folder-checks.ts); the folders are looked at in parallel.
 */
async function firstLinkedFolder(realRoot: string, dirParts: readonly string[], checks: FolderChecks): Promise<string | null> {
  const dirs = foldersDown(realRoot, dirParts);
  const bad = await Promise.all(dirs.map((dir) => checks.notRealFolder(dir)));
  const at = bad.indexOf(true);
  return at < 0 ? null : dirs[at]!;
}

/** The resume key as older versions named the part file (`<file>-<sha256>`, before set ids were part of it). */
function legacyResumeKey(resumeKey: string): string | null {
  const m = /^\d+-(\d+-[0-9a-f]{64})$/.exec(resumeKey);
  return m ? m[1]! : null;
}

/** Whether a listing of partial/ has a part file of this download, under today's name or the older one. */
function holds(names: Set<string>, resumeKey: string): boolean {
  const legacy = legacyResumeKey(resumeKey);
  return names.has(`${resumeKey}.part`) || (legacy !== null && names.has(`${legacy}.part`));
}

/**
 * The part files in the partial folder, listed once per destination opened (one readdir per
 * sync): older versions' names are taken over from the listing rather than probed with a rename
 * that fails for nearly every file, and a small download with no part file is held in memory
 * (memory-upload.ts) without a call to look for one. Only this sync (it holds the lock) adds
 * part files meanwhile: a LocalUpload's own, and a MemoryUpload's set aside (add).
 */
export class HeldParts {
  private names: Promise<Set<string>> | undefined;
  /** The listing once read (has() without waiting: holdsNow). */
  private known: Set<string> | undefined;

  constructor(private readonly partialDir: string) {}

  /** Begins the listing (once the lock is held), so that holdsNow can answer by the time the first downloads ask. */
  begin(): void {
    void this.listing();
  }

  /** has(), answered without waiting once the listing was read; undefined before (the listing is then begun). */
  holdsNow(resumeKey: string): boolean | undefined {
    const names = this.known;
    if (names === undefined) {
      void this.listing();
      return undefined;
    }
    return names.size > 0 && holds(names, resumeKey);
  }

  /** Whether the listing had a part file of this download, under today's name or the older one. */
  async has(resumeKey: string): Promise<boolean> {
    const names = await this.listing();
    return names.size > 0 && holds(names, resumeKey); // none: a first sync's case, no name to build, no pattern to match
  }

  /** A part file this sync wrote after the listing (a small download's bytes set aside by MemoryUpload.close). */
  async add(resumeKey: string): Promise<void> {
    (await this.listing()).add(`${resumeKey}.part`);
  }

  /** Moves the older part file of this download, if the listing had one, to `part` (rename is atomic: of two transfers that could use it, one gets it). */
  async claim(resumeKey: string, part: string): Promise<void> {
    const legacy = legacyResumeKey(resumeKey);
    if (legacy === null) return;
    const name = `${legacy}.part`;
    if (!(await this.listing()).delete(name)) return;
    await fs.rename(path.join(this.partialDir, name), part).catch(() => undefined); // gone meanwhile: no resume from it
  }

  private listing(): Promise<Set<string>> {
    this.names ??= fs.readdir(this.partialDir).then(
      (names) => (this.known = new Set(names.filter((n) => n.endsWith('.part')))),
      () => (this.known = new Set<string>()),
    );
    return this.names;
  }
}

export interface PartPaths {
  key: string;
  /** DEST/.dataset-sync/partial/<resumeKey>.part */
  partPath: string;
  /** DEST's real path, resolved once per sync (LocalFolder.prepare): the rename's target starts here, never at a link. */
  realRoot: string;
  /** The key's folders below DEST ('sets', '<id>'), each checked to be a real folder around the rename. */
  dirParts: readonly string[];
  /** The file's name in its folder. */
  name: string;
}

export class LocalUpload implements Upload {
  readonly commitsLocally = true;
  private fd: number | undefined;

  private constructor(
    private readonly paths: PartPaths,
    private readonly checks: FolderChecks,
    fd: number,
    readonly held: number,
  ) {
    this.fd = fd;
  }

  /** Opens (or resumes) the part file of `expect.resumeKey`; a part of the same download under its older name is taken over first. */
  static async open(paths: PartPaths, heldParts: HeldParts, checks: FolderChecks, expect: ExpectedBody): Promise<LocalUpload> {
    await heldParts.claim(expect.resumeKey, paths.partPath);
    let part: { fd: number; held: number };
    try {
      part = await openPart(paths.partPath);
    } catch (e) {
      throw isFatalFsError(e) ? localFsError(e, `open ${paths.partPath}`) : e;
    }
    return new LocalUpload(paths, checks, part.fd, part.held);
  }

  private get open(): number {
    if (this.fd === undefined) throw new Error(`the upload of ${this.paths.key} is closed`);
    return this.fd;
  }

  async *readHeld(): AsyncIterable<Buffer> {
    if (this.held === 0) return;
    // By the descriptor opened with O_NOFOLLOW: the bytes read are those of the part file written.
    const rs = createReadStream('', { fd: this.open, autoClose: false, highWaterMark: 1024 * 1024, start: 0, end: this.held - 1 });
    for await (const chunk of rs as AsyncIterable<Buffer>) yield chunk;
  }

  /** Writes every byte of `chunks` at `position` (a short write goes round again); one pwritev per 512 buffers. */
  async write(chunks: readonly Buffer[], position: number): Promise<number> {
    const fd = this.open;
    let pending = [...chunks];
    let at = position;
    let total = 0;
    try {
      while (pending.length > 0) {
        const bufs = pending.length <= MAX_IOV ? pending : pending.slice(0, MAX_IOV);
        pending = pending.length <= MAX_IOV ? [] : pending.slice(MAX_IOV);
        let bytes = 0;
        for (const b of bufs) bytes += b.length;
        const written = await io.writev(fd, bufs, at);
        at += written;
        total += written;
        if (written < bytes) pending = tailAfter(bufs, written).concat(pending);
      }
    } catch (e) {
      throw isFatalFsError(e) ? localFsError(e, `write ${this.paths.partPath}`) : e;
    }
    return total;
  }

  /** Truncates at once (synchronously, before the returned promise): a 200 answer's first byte may be written right after. */
  restart(): Promise<void> {
    try {
      ftruncateSync(this.open, 0);
    } catch (e) {
      return Promise.reject(isFatalFsError(e) ? localFsError(e, `truncate ${this.paths.partPath}`) : e);
    }
    return Promise.resolve();
  }

  /**
   * Moves the verified part file to DEST's real path + the key, unless a folder on the way has
   * become a link. Why this is as strong as the realpath comparison it replaces (two realpath
   * calls per file, each a readlink per component of the whole absolute path, on the event loop):
   * the target path starts at DEST's real path, resolved once per sync, so the only names on
   * it that anyone with write access inside DEST could swap are the key's folders ('sets',
   * 'sets/<id>'); a path whose every such folder is a real folder (lstat: not a link) resolves
   * exactly where realpath would have said, and one link among them is refused as before (the
   * old check refused any realpath other than DEST's + the key's folders, i.e. any link there).
   * DEST's own ancestors are outside the dataset folder and not the threat guarded here (a link
   * planted inside DEST, safe-dirs.ts). As before, the check runs just before the rename (the
   * file stays in partial/) and again just after it (a swap in between is reported, and the file
   * is not listed): a rename path-walks, so no check by path can close that window; the
   * after-check is what makes it harmless to the dataset's lists.
   */
  async commit(): Promise<ObjectInfo> {
    const fd = this.open;
    this.fd = undefined;
    let st: Stats;
    try {
      st = await io.fstat(fd);
    } catch (e) {
      await io.close(fd).catch(() => undefined);
      throw e;
    }
    const { partPath, realRoot, dirParts, name } = this.paths;
    const dir = path.join(realRoot, ...dirParts);
    const finalPath = path.join(dir, name);
    // The close and the check run side by side on the thread pool (rename needs neither order).
    const [before] = await Promise.all([this.folderOutside(), io.close(fd).catch(() => undefined)]);
    if (before !== null) throw linkedBeforeRename(before, 'the verified bytes stay in the partial folder');
    try {
      try {
        await io.rename(partPath, finalPath);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        // The set folder vanished mid-sync (deleted by the user): make it again.
        await fs.mkdir(dir, { recursive: true });
        await fs.rename(partPath, finalPath);
      }
    } catch (e) {
      throw localFsError(e, `move ${this.paths.key} into place`);
    }
    // Checked again after the fact: the folder may have been swapped between the check and the rename.
    const after = await this.folderOutside();
    if (after !== null) throw linkedAfterRename(path.join(after, name));
    // rename keeps the mtime that fstat saw just before the part file was closed.
    return { key: this.paths.key, size: st.size, stamp: String(st.mtimeMs) };
  }

  async close(): Promise<void> {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) await io.close(fd).catch(() => undefined);
  }

  async discard(): Promise<void> {
    await this.close();
    await fs.rm(this.paths.partPath, { force: true });
  }

  private folderOutside(): Promise<string | null> {
    return folderOutside(this.paths, this.checks);
  }
}

/** Where the final file's folder really leads when a folder on its way is a link (or not a folder); null when all are real folders. */
async function folderOutside(paths: Pick<PartPaths, 'realRoot' | 'dirParts'>, checks: FolderChecks): Promise<string | null> {
  const linked = await firstLinkedFolder(paths.realRoot, paths.dirParts, checks);
  return linked === null ? null : whereLinkLeads(paths, linked);
}

/** Where the folder `linked` (one of the key's folders) and the folders below it on the key's way lead, for the message. */
export async function whereLinkLeads(paths: Pick<PartPaths, 'realRoot' | 'dirParts'>, linked: string): Promise<string> {
  const { realRoot, dirParts } = paths;
  // Rare (only when refusing): where the link leads (the folders below it may not be there).
  const below = dirParts.slice(path.relative(realRoot, linked).split(path.sep).length);
  return path.join(await fs.realpath(linked).catch(() => linked), ...below);
}

/** The commit found a folder of the key's way linked before the rename (`leadsTo`: where it leads); `kept`: what became of the verified bytes. */
export function linkedBeforeRename(leadsTo: string, kept: string): EscapeError {
  return new EscapeError(`its folder no longer resolves inside DEST (it leads to ${leadsTo}); not moved into place, ${kept}`);
}

/** The commit found a folder of the key's way linked after the rename: the file went to `landedAt`, outside DEST. */
export function linkedAfterRename(landedAt: string): EscapeError {
  return new EscapeError(`its folder was replaced by a link while the file was moved into place; the file ended up at ${landedAt}, outside DEST, and is not listed`);
}

/** A short write (rare on regular files): the unwritten tail of `bufs`. */
function tailAfter(bufs: Buffer[], written: number): Buffer[] {
  const tail: Buffer[] = [];
  let skip = written;
  for (const b of bufs) {
    if (skip >= b.length) {
      skip -= b.length;
      continue;
    }
    tail.push(skip > 0 ? b.subarray(skip) : b);
    skip = 0;
  }
  return tail;
}

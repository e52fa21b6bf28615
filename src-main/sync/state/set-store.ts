// What the engine knows of each local set — its status and its verified files with the size and
// stamp (a folder's mtime) seen at verification — kept in the destination's state folder
// (Destination.stateDir: DEST/.dataset-sync for a folder) in sets.jsonl, one JSON line per
// set record, and read back one set at a time. Memory holds only an index (set id -> where its
// newest line is) and the records changed since the last flush, so it stays flat in the set
// count: with every file entry in memory, 10,000 sets / 40,000 files cost ~50 MB of peak RSS
// more than 2,500 sets (bench scenario 5).
//
// The log is append-only: a changed record is appended and the index points at the new line.
// A line cut short by a crash is dropped when the store is opened (its set's files are then
// unknown to the engine and are adopted by hash on the next sync: no data is lost). When
// superseded lines outweigh live ones the log is rewritten in set-id order (temp file + rename).
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, ftruncateSync, openSync, readSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeAllSync } from '../destination/local/atomic';
import type { MediaEntry } from '../media/media-check';

export interface FileEntry {
  setId: number;
  fileId: number;
  slotIndex: number;
  slotKey: string;
  sizeBytes: number;
  sha256: string;
  /** A folder's stamp (ObjectInfo.stamp: the mtime in ms), kept as a number as before the seam. */
  mtimeMs: number;
  /** The stamp when it is not a number (a bucket's ETag); then mtimeMs is 0. */
  stamp?: string;
  participantRefs: string;
  isGold: boolean;
  acceptedAt: string | null;
  updatedAt: string;
  downloadedAt: string;
  /** The media check of this version of the file (media/media-stage.ts); absent until probed. */
  media?: MediaEntry;
}

/**
 * A participant of the set as participants.csv lists it (docs/contracts.md §1), kept with the set's
 * record when the set is planned, so the file is written at the end of a sync without reading
 * any set.json back. A field the collection did not ask for is absent.
 */
export interface ParticipantEntry {
  role: string;
  ref: string;
  age?: number;
  gender?: string;
  ethnicity?: string;
  skinTone?: string | null;
  group: string;
  value: string;
  /** False for a null consent (none on record). */
  signed: boolean;
}

export interface LocalSet {
  id: number;
  /** The set's updated_at when it was last complete or failed; null for a set only known by its files. */
  updatedAt: string | null;
  isGold: boolean;
  complete: boolean;
  /** Set when the set was last seen with a status other than accepted. */
  leftAccepted?: string;
  /** Verified files, keyed by path relative to DEST ("sets/12/set_12_slot_01.mp4"). */
  files: Record<string, FileEntry>;
  /** The set's participants in role order; absent in a record written before they were kept (participants-file.ts). */
  participants?: ParticipantEntry[];
}

/** The stamp the destination gave when the file was verified (ObjectInfo.stamp). */
export function entryStamp(e: Pick<FileEntry, 'mtimeMs' | 'stamp'>): string {
  return e.stamp ?? String(e.mtimeMs);
}

/** The entry fields that record `stamp`: a number's decimal string (a folder's mtime) stays the number mtimeMs, so records read as before. */
export function stampFields(stamp: string): Pick<FileEntry, 'mtimeMs' | 'stamp'> {
  const n = Number(stamp);
  return stamp !== '' && String(n) === stamp ? { mtimeMs: n } : { mtimeMs: 0, stamp };
}

export function emptyLocalSet(id: number): LocalSet {
  return { id, updatedAt: null, isGold: false, complete: false, files: {} };
}

const LOG_NAME = 'sets.jsonl';
/** Rewrite the log when superseded bytes exceed live bytes and this floor. */
const COMPACT_MIN_DEAD_BYTES = 1024 * 1024;
const SCAN_CHUNK = 1024 * 1024;
const NEWLINE = 0x0a;

interface Slot {
  offset: number;
  length: number;
}

/** The set id at the start of a record line (`{"id":123,...`), without parsing the rest. */
function idOfLine(buf: Buffer, start: number, end: number): number | null {
  const prefix = '{"id":';
  if (end - start < prefix.length + 1 || buf.toString('latin1', start, start + prefix.length) !== prefix) return null;
  let id = 0;
  let i = start + prefix.length;
  for (; i < end && buf[i]! >= 0x30 && buf[i]! <= 0x39; i++) id = id * 10 + (buf[i]! - 0x30);
  return i > start + prefix.length && buf[i] === 0x2c ? id : null;
}

export class SetStore {
  private readonly index = new Map<number, Slot>();
  /** Records changed since the last flush: read back from here, written by flush(). */
  private readonly dirty = new Map<number, LocalSet>();
  private size = 0;
  private liveBytes = 0;
  private readBuf = Buffer.alloc(64 * 1024);

  private constructor(
    private readonly file: string,
    private readonly tmpDir: string,
    private fd: number,
  ) {}

  /**
   * Opens (or creates) the log in the state folder `stateDir` (DEST/.dataset-sync) and indexes
   * it; compaction writes its temp file in `stateDir`/tmp. A symlink in its place is refused (O_NOFOLLOW).
   */
  static open(stateDir: string): SetStore {
    const file = path.join(stateDir, LOG_NAME);
    const fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
    const store = new SetStore(file, path.join(stateDir, 'tmp'), fd);
    try {
      store.scan();
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    return store;
  }

  /** Builds the index from every complete line; drops a torn last line. */
  private scan(): void {
    const total = fstatSync(this.fd).size;
    let buf = Buffer.alloc(SCAN_CHUNK);
    let pos = 0; // file offset of buf[0]
    let filled = 0;
    for (;;) {
      if (filled === buf.length) {
        // One line longer than the buffer (a set with very many files): grow it.
        const bigger = Buffer.alloc(buf.length * 2);
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
      const n = pos + filled < total ? readSync(this.fd, buf, filled, buf.length - filled, pos + filled) : 0;
      if (n === 0) break;
      filled += n;
      let lineStart = 0;
      for (let nl = buf.indexOf(NEWLINE); nl !== -1 && nl < filled; nl = buf.indexOf(NEWLINE, lineStart)) {
        const id = idOfLine(buf, lineStart, nl);
        if (id !== null) this.point(id, { offset: pos + lineStart, length: nl - lineStart });
        lineStart = nl + 1;
      }
      buf.copy(buf, 0, lineStart, filled);
      pos += lineStart;
      filled -= lineStart;
    }
    this.size = pos; // anything after the last newline is a torn write
    if (this.size < total) ftruncateSync(this.fd, this.size);
  }

  private point(id: number, slot: Slot): void {
    const old = this.index.get(id);
    if (old) this.liveBytes -= old.length + 1;
    this.index.set(id, slot);
    this.liveBytes += slot.length + 1;
  }

  /** Ids of every known set, ascending. */
  ids(): number[] {
    const ids = new Set<number>(this.index.keys());
    for (const id of this.dirty.keys()) ids.add(id);
    return [...ids].sort((a, b) => a - b);
  }

  /** The set's record; undefined when unknown (or its line is unreadable: then its files are adopted by hash). */
  get(id: number): LocalSet | undefined {
    const pending = this.dirty.get(id);
    if (pending) return pending;
    const slot = this.index.get(id);
    if (!slot) return undefined;
    try {
      const rec = JSON.parse(this.readLine(slot)) as LocalSet;
      return rec && rec.id === id && typeof rec.files === 'object' && rec.files !== null ? rec : undefined;
    } catch {
      return undefined;
    }
  }

  /** The line at `slot`, without its newline. */
  private readLine(slot: Slot): string {
    if (this.readBuf.length < slot.length) this.readBuf = Buffer.alloc(slot.length * 2);
    const n = readSync(this.fd, this.readBuf, 0, slot.length, slot.offset);
    return this.readBuf.toString('utf8', 0, n);
  }

  /** Records a changed set; it reaches the disk with the next flush. */
  put(rec: LocalSet): void {
    this.dirty.set(rec.id, rec);
  }

  /**
   * Forgets a set (it left the dataset, withdraw.ts): a line without files is appended, which
   * get() reads as unknown; compaction drops it.
   */
  remove(id: number): void {
    this.dirty.delete(id);
    if (!this.index.has(id)) return;
    const line = JSON.stringify({ id, removed: true });
    const data = Buffer.from(line + '\n');
    writeAllSync(this.fd, data, this.size);
    const old = this.index.get(id)!;
    this.liveBytes -= old.length + 1;
    this.index.delete(id);
    this.size += data.length;
  }

  /** Bytes of the log: changes whenever a record is written, so it tells whether records changed since a point in time. */
  get logBytes(): number {
    return this.size;
  }

  /** Appends every changed record (one write). */
  flush(): void {
    if (this.dirty.size === 0) return;
    const lines: string[] = [];
    const slots: Array<[number, number]> = [];
    for (const rec of this.dirty.values()) {
      // `id` first: the index is rebuilt from the start of each line without parsing the rest.
      const { id, ...rest } = rec;
      const line = JSON.stringify({ id, ...rest });
      lines.push(line);
      slots.push([rec.id, Buffer.byteLength(line)]);
    }
    const data = Buffer.from(lines.join('\n') + '\n');
    writeAllSync(this.fd, data, this.size);
    let at = this.size;
    for (const [id, length] of slots) {
      this.point(id, { offset: at, length });
      at += length + 1;
    }
    this.size += data.length;
    this.dirty.clear();
  }

  /** Every record in set-id order, read one at a time. */
  *all(): Generator<LocalSet> {
    for (const id of this.ids()) {
      const rec = this.get(id);
      if (rec) yield rec;
    }
  }

  /** Rewrites the log without superseded lines, in set-id order, when they outweigh the live ones. */
  compactIfWasteful(): void {
    this.flush();
    const dead = this.size - this.liveBytes;
    if (dead < COMPACT_MIN_DEAD_BYTES || dead < this.liveBytes) return;
    const tmp = path.join(this.tmpDir, `.${LOG_NAME}.${randomBytes(4).toString('hex')}.tmp`);
    const out = openSync(tmp, 'wx', 0o644);
    const slots: Array<[number, Slot]> = [];
    let at = 0;
    try {
      let batch: string[] = [];
      let batchBytes = 0;
      const write = () => {
        writeAllSync(out, Buffer.from(batch.join('')));
        batch = [];
        batchBytes = 0;
      };
      for (const id of this.ids()) {
        const slot = this.index.get(id)!;
        const line = this.readLine(slot);
        const length = Buffer.byteLength(line);
        batch.push(line + '\n');
        batchBytes += length + 1;
        slots.push([id, { offset: at, length }]);
        at += length + 1;
        if (batchBytes >= SCAN_CHUNK) write();
      }
      write();
      closeSync(out);
      renameSync(tmp, this.file);
    } catch (e) {
      try {
        closeSync(out);
      } catch {
        // already closed
      }
      rmSync(tmp, { force: true });
      throw e;
    }
    closeSync(this.fd);
    this.fd = openSync(this.file, constants.O_RDWR | constants.O_NOFOLLOW);
    this.index.clear();
    this.liveBytes = 0;
    for (const [id, slot] of slots) this.point(id, slot);
    this.size = at;
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // closing twice (after a failed compaction) is harmless
    }
  }
}

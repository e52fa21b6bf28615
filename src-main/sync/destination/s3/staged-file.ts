// The staged file of a bucket upload and its resume record (upload.ts). The bytes the engine
// writes are staged in a local file under the destination's stateDir (uploads/<name>.part): a
// resume hashes the held bytes from it, and every part and PUT is read back from it (parts.ts,
// commit.ts), so what goes up is the bytes the engine hashed.
//
// Resume across restarts: a small record next to the staged file (uploads/<name>.json) holds the
// upload id and the MD5 of every part sent; opening again lists the parts the store holds
// (ListParts, parts.ts) and sends again only those it lacks. held = the staged bytes (all of them:
// the tail not yet in a full part is sent with the next part, never downloaded again). The
// bucket's cleanUp (s3-bucket.ts) spares the multipart uploads these records hold.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { DestinationError, type ExpectedBody } from '../destination';

const MAX_PARTS = 10_000;

/** What survives a restart: which multipart upload holds which parts of the staged file. */
export interface UploadRecord {
  /** The object's full name in the bucket. */
  objectKey: string;
  size: number;
  sha256: string;
  partSize: number;
  uploadId?: string;
  /** Part number -> MD5 (hex) of the part we sent. */
  parts: Record<string, string>;
}

/** The record of a new upload of `expect` into `objectKey`, in parts of `minPartSize` bytes or more. */
export function freshRecord(objectKey: string, expect: ExpectedBody, minPartSize: number): UploadRecord {
  // Parts stay within S3's 10,000 (a 100 GB body gets 10 MiB parts).
  const mib = 1024 * 1024;
  const partSize = Math.max(minPartSize, Math.ceil(expect.size / MAX_PARTS / mib) * mib);
  return { objectKey, size: expect.size, sha256: expect.sha256, partSize, parts: {} };
}

/** A file name for a resume key (validated ids and a hash: used as is when it is a safe name). */
export function stagedName(resumeKey: string): string {
  return /^[A-Za-z0-9._-]{1,160}$/.test(resumeKey) && !resumeKey.startsWith('.')
    ? resumeKey
    : createHash('sha256').update(resumeKey).digest('hex').slice(0, 40);
}

/** The upload ids this machine still holds for resume (cleanUp spares them). */
export async function heldUploadIds(dir: string): Promise<Set<string>> {
  const ids = new Set<string>();
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const record = await readRecord(path.join(dir, name));
    if (record?.uploadId) ids.add(record.uploadId);
  }
  return ids;
}

export async function readRecord(file: string): Promise<UploadRecord | null> {
  try {
    const v = JSON.parse(await fs.readFile(file, 'utf8')) as UploadRecord;
    return v && typeof v === 'object' && typeof v.objectKey === 'string' && v.parts && typeof v.parts === 'object' ? v : null;
  } catch {
    return null;
  }
}

/** The staged file (`file`) of one upload and its record (`recordFile`, holding `record`). */
export class StagedFile {
  private handle: fs.FileHandle | null = null;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    readonly file: string,
    readonly recordFile: string,
    /** The record as it is now: save() writes it. */
    public record: UploadRecord,
  ) {}

  get isOpen(): boolean {
    return this.handle !== null;
  }

  /** Opens the staged file, made empty when there is none; resolves with its size. */
  async open(): Promise<number> {
    let size = 0;
    try {
      this.handle = await fs.open(this.file, 'r+');
      size = (await this.handle.stat()).size;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new DestinationError('io', `Cannot open the staged upload ${this.file}: ${(e as Error).message}`);
      this.handle = await fs.open(this.file, 'w+');
    }
    return size;
  }

  /** Drops every staged byte. */
  async truncate(): Promise<void> {
    await this.handle?.truncate(0);
  }

  /** Writes `chunks` at `position` of the open file. */
  async writev(chunks: readonly Buffer[], position: number): Promise<number> {
    const { bytesWritten } = await this.handle!.writev(chunks as Buffer[], position);
    return bytesWritten;
  }

  /** The staged bytes from `start`, `length` of them, read whole (a part's or a PUT's body). */
  async readRange(start: number, length: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const { bytesRead } = await this.handle!.read(buf, got, length - got, start + got);
      if (bytesRead === 0) throw new DestinationError('io', `The staged upload ${this.file} is shorter than written.`);
      got += bytesRead;
    }
    return buf;
  }

  /** The first `held` staged bytes, streamed. */
  async *readHeld(held: number): AsyncIterable<Buffer> {
    if (held === 0) return;
    for await (const chunk of createReadStream(this.file, { start: 0, end: held - 1 })) yield chunk as Buffer;
  }

  /**
   * Writes the record (aside, then rename). Parts finish in any order: saves are queued and
   * each writes the record as it is when its turn comes, so the last one on disk is the newest.
   */
  save(): Promise<void> {
    const save = this.saving.then(async () => {
      const tmp = `${this.recordFile}.${randomBytes(4).toString('hex')}.tmp`;
      await fs.writeFile(tmp, JSON.stringify(this.record));
      await fs.rename(tmp, this.recordFile);
    });
    this.saving = save.catch(() => undefined);
    return save;
  }

  /** Closes the file; the staged bytes and the record stay for a later resume. */
  async close(): Promise<void> {
    await this.handle?.close().catch(() => undefined);
    this.handle = null;
  }

  /** Closes the file and removes it and its record. */
  async remove(): Promise<void> {
    await this.close();
    await fs.rm(this.recordFile, { force: true });
    await fs.rm(this.file, { force: true });
  }
}

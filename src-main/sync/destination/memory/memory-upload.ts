// One upload into an in-memory destination (Destination.openUpload): its bytes are held in the
// store under the resume key, so a closed upload resumes where it stopped when opened again, as a
// folder's part file does; commit() checks size and SHA-256 itself (as the bucket's upload does)
// before the object appears under its key.
import { createHash } from 'node:crypto';
import { DestinationError, type ExpectedBody, type ObjectInfo, type Upload } from '../destination';
import { nextStamp, type MemoryStore } from './memory-store';

export class MemoryStoreUpload implements Upload {
  readonly held: number;
  /** Its commit is a write to this process's memory: the engine may start the next download meanwhile. */
  readonly commitsLocally = true;
  private written: number;
  private ended = false;

  constructor(
    private readonly store: MemoryStore,
    private readonly key: string,
    private readonly expect: ExpectedBody,
    private readonly label: string,
  ) {
    this.written = this.parts().reduce((n, b) => n + b.length, 0);
    this.held = this.written;
  }

  /** The bytes held for this body, the same array across attempts (made on first use). */
  private parts(): Buffer[] {
    let parts = this.store.held.get(this.expect.resumeKey);
    if (!parts) this.store.held.set(this.expect.resumeKey, (parts = []));
    return parts;
  }

  private open(): void {
    if (this.ended) throw new DestinationError('io', `The upload of ${this.key} into ${this.label} was already closed.`);
  }

  async *readHeld(): AsyncIterable<Buffer> {
    for (const part of [...this.parts()]) yield part;
  }

  async write(chunks: readonly Buffer[], position: number): Promise<number> {
    this.open();
    if (position !== this.written) throw new DestinationError('io', `Write of ${this.key} at ${position}, but ${this.written} bytes are held.`);
    let bytes = 0;
    // Copied: the caller may reuse its buffers once the write resolved.
    for (const chunk of chunks) {
      this.parts().push(Buffer.from(chunk));
      bytes += chunk.length;
    }
    this.written += bytes;
    return bytes;
  }

  async restart(): Promise<void> {
    this.open();
    this.parts().length = 0;
    this.written = 0;
  }

  async commit(): Promise<ObjectInfo> {
    this.open();
    const bytes = Buffer.concat(this.parts());
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (bytes.length !== this.expect.size || sha256 !== this.expect.sha256) {
      throw new DestinationError('io', `${this.key} was not committed to ${this.label}: its ${bytes.length} bytes do not hash to the expected ${this.expect.size} bytes.`);
    }
    const stamp = nextStamp();
    this.store.objects.set(this.key, { bytes, stamp, sha256 });
    this.store.held.delete(this.expect.resumeKey);
    this.ended = true;
    return { key: this.key, size: bytes.length, stamp, sha256 };
  }

  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    // Nothing held is nothing to resume: no empty entry stays behind.
    if (this.written === 0) this.store.held.delete(this.expect.resumeKey);
  }

  async discard(): Promise<void> {
    this.ended = true;
    this.store.held.delete(this.expect.resumeKey);
  }
}

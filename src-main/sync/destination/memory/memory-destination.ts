// A destination in this process's memory (`memory://NAME`), for tests only: never offered by the
// CLI or the app. It implements the whole Destination interface with the folder's and the
// bucket's promises — uploads visible only once committed, held bytes resumed across attempts,
// atomic writes and extensions, list in key order, moves, the presence check, one lock holder —
// and passes the same contract suite (test/destination/memory-contract.test.ts), so the engine's
// plan, transfer and set outcomes can be unit-tested fast against it (test/engine/unit/).
//
// Only the engine's own state (state.db, history) is on disk, in `stateDir` (a folder of this
// machine's, as a bucket's): the state store is SQLite. Keys follow key-rules.ts like every
// destination's.
import { createHash } from 'node:crypto';
import type { Destination, DestinationCapabilities, DestinationLock, ExpectedBody, ExpectedObject, ObjectInfo, PresenceProblem, ReadOptions, Upload } from '../destination';
import { copyThenRemove, DestinationError } from '../destination';
import { checkKey, checkPrefix } from '../key-rules';
import { ensureStateHome } from '../local/state-home';
import { memoryStore, nextStamp, type MemoryStore, type StoredObject } from './memory-store';
import { MemoryStoreUpload } from './memory-upload';

/** read() hands the bytes on in chunks of this size, as a file or an object body is streamed. */
const READ_CHUNK = 1 << 20;

function info(key: string, o: StoredObject): ObjectInfo {
  return o.sha256 === undefined ? { key, size: o.bytes.length, stamp: o.stamp } : { key, size: o.bytes.length, stamp: o.stamp, sha256: o.sha256 };
}

/** Keys in the order of their UTF-8 bytes, as a bucket lists them (and as a folder's ASCII keys sort). */
function byKey(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

async function bodyBytes(body: string | Buffer | AsyncIterable<string | Buffer>): Promise<Buffer> {
  if (typeof body === 'string') return Buffer.from(body);
  if (Buffer.isBuffer(body)) return Buffer.from(body);
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(parts);
}

export class MemoryDestination implements Destination {
  readonly kind = 'memory' as const;
  readonly label: string;
  // No disk to fill; the upload checks the bytes' SHA-256 itself at commit.
  readonly capabilities: DestinationCapabilities = { freeSpace: false, checksSha256: false };
  private readonly store: MemoryStore;
  private emptyWhenPrepared = false;

  constructor(
    readonly name: string,
    readonly stateDir: string,
  ) {
    this.label = `memory://${name}`;
    this.store = memoryStore(name);
  }

  private object(key: string): StoredObject | undefined {
    checkKey(key);
    return this.store.objects.get(key);
  }

  private absent(key: string): DestinationError {
    return new DestinationError('io', `${key} is not in ${this.label}`, 'ENOENT');
  }

  async prepare(): Promise<string[]> {
    await ensureStateHome(this.stateDir, this.label);
    this.emptyWhenPrepared = this.store.objects.size === 0;
    return [];
  }

  /** True when prepare() found no object: a consent record there now was written since. */
  get foundEmpty(): boolean {
    return this.emptyWhenPrepared;
  }

  async lock(): Promise<DestinationLock> {
    if (this.store.locked) throw new DestinationError('locked', `${this.label} is locked by another sync in this process.`);
    this.store.locked = true;
    let held = true;
    return {
      release: async () => {
        if (held) this.store.locked = false;
        held = false;
      },
    };
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    const o = this.object(key);
    return o ? info(key, o) : null;
  }

  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    checkPrefix(prefix);
    const keys = [...this.store.objects.keys()].filter((k) => k.startsWith(prefix)).sort(byKey);
    for (const key of keys) {
      const o = this.store.objects.get(key);
      if (o) yield info(key, o);
    }
  }

  async *read(key: string, options: ReadOptions = {}): AsyncIterable<Buffer> {
    const o = this.object(key);
    if (!o) throw this.absent(key);
    const chunk = options.chunkBytes ?? READ_CHUNK;
    for (let at = options.start ?? 0; at < o.bytes.length; at += chunk) yield o.bytes.subarray(at, at + chunk);
  }

  async readText(key: string): Promise<string | null> {
    return this.peekText(key);
  }

  peekText(key: string): string | null {
    return this.object(key)?.bytes.toString('utf8') ?? null;
  }

  async writeAtomic(key: string, body: string | Buffer | AsyncIterable<string | Buffer>): Promise<ObjectInfo> {
    checkKey(key);
    // Gathered whole, then stored in one step: readers see the old bytes or the new.
    const o: StoredObject = { bytes: await bodyBytes(body), stamp: nextStamp() };
    this.store.objects.set(key, o);
    return info(key, o);
  }

  async extendAtomic(key: string, expect: { size: number; stamp: string }, tail: string | Buffer, keep?: number): Promise<ObjectInfo | null> {
    const o = this.object(key);
    if (!o || o.bytes.length !== expect.size || o.stamp !== expect.stamp) return null;
    const extended: StoredObject = { bytes: Buffer.concat([o.bytes.subarray(0, keep ?? o.bytes.length), Buffer.from(tail)]), stamp: nextStamp() };
    this.store.objects.set(key, extended);
    return info(key, extended);
  }

  async remove(key: string): Promise<void> {
    checkKey(key);
    this.store.objects.delete(key);
  }

  /** Another in-memory destination: the object itself moves (stamp and sha256 with it); any other: the bytes are streamed across. */
  async move(key: string, target: Destination, targetKey: string): Promise<boolean> {
    checkKey(key);
    checkKey(targetKey);
    if (!(target instanceof MemoryDestination)) return copyThenRemove(this, key, target, targetKey);
    const o = this.store.objects.get(key);
    if (!o) return false;
    target.store.objects.set(targetKey, o);
    this.store.objects.delete(key);
    return true;
  }

  async removeAll(): Promise<void> {
    this.store.objects.clear();
    this.store.held.clear();
  }

  async openUpload(key: string, expect: ExpectedBody): Promise<Upload> {
    checkKey(key);
    return new MemoryStoreUpload(this.store, key, expect, this.label);
  }

  /** At once when nothing is held for the body; else null (openUpload resumes it). */
  openUploadNow(key: string, expect: ExpectedBody): Upload | null {
    checkKey(key);
    if (this.store.held.has(expect.resumeKey)) return null;
    return new MemoryStoreUpload(this.store, key, expect, this.label);
  }

  /** Trusts the SHA-256 a committed upload was checked against; hashes an object written whole. */
  async verifiedCopy(key: string, expect: { size: number; sha256: string }): Promise<ObjectInfo | null> {
    const o = this.object(key);
    if (!o || o.bytes.length !== expect.size) return null;
    const sha256 = o.sha256 ?? createHash('sha256').update(o.bytes).digest('hex');
    return sha256 === expect.sha256 ? info(key, o) : null;
  }

  async *checkPresence(expected: Iterable<ExpectedObject>): AsyncIterable<PresenceProblem> {
    for (const e of expected) {
      const o = this.object(e.key);
      if (!o) yield { key: e.key, problem: 'missing' };
      else if (o.bytes.length !== e.size || o.stamp !== e.stamp) yield { key: e.key, problem: 'changed' };
    }
  }

  async freeSpace(): Promise<number | null> {
    return null;
  }

  async close(): Promise<void> {}
}

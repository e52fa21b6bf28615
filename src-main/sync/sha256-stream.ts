// SHA-256 of a download as it streams. Large files are hashed on a worker thread so the main
// thread only receives and writes: on the bulk benchmark the hash was a third of the main
// thread's time (1.56 s of 4.7 s for 2 GiB) and the receiving thread was the bottleneck.
// Bytes reach the worker through SharedArrayBuffer blocks (one copy, no per-chunk message);
// a block is reused once the worker has hashed it. Small files stay on the main thread, where
// one hash update costs less than a round trip to the worker.
//
// The worker is plain JavaScript evaluated from a string, so it runs alike under tsx, in the
// bundled Electron main process and in tests, with no loader or extra build entry.
import { createHash } from 'node:crypto';
import os from 'node:os';
import { Worker } from 'node:worker_threads';

export interface Sha256Stream {
  update(chunk: Buffer): void;
  /** True while the worker lags by more than a few blocks: the caller should pause its source. */
  readonly backlogged: boolean;
  /** Resolves once `backlogged` is false again. */
  drained(): Promise<void>;
  /** The hex digest of everything passed to update. */
  digest(): Promise<string>;
  /** The digest at once when no thread must be waited for (a small file's, hashed here), else undefined: saves a promise per file. */
  digestNow(): string | undefined;
  /** Frees the stream without a digest (a failed attempt). Safe to call after digest. */
  discard(): void;
}

/** Files at least this large are hashed on a worker. */
export const WORKER_HASH_MIN_BYTES = 4 * 1024 * 1024;
const BLOCK_BYTES = 1024 * 1024;
/** Blocks in flight per file before `backlogged`: bounds the memory a lagging worker can hold. */
const MAX_BLOCKS = 6;

/** `workerLimit`: how many hash workers may run (SyncTuning.hashWorkers; 0 = main thread only). */
export function createSha256Stream(sizeBytes: number, workerLimit: number): Sha256Stream {
  if (sizeBytes >= WORKER_HASH_MIN_BYTES && workerLimit > 0) {
    const worker = hashWorkers.next(Math.min(workerLimit, MAX_HASH_WORKERS));
    if (worker) return new WorkerSha256(worker);
  }
  return new LocalSha256();
}

class LocalSha256 implements Sha256Stream {
  private readonly hash = createHash('sha256');
  readonly backlogged = false;
  update(chunk: Buffer): void {
    this.hash.update(chunk);
  }
  drained(): Promise<void> {
    return Promise.resolve();
  }
  digest(): Promise<string> {
    return Promise.resolve(this.hash.digest('hex'));
  }
  digestNow(): string {
    return this.hash.digest('hex');
  }
  discard(): void {}
}

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', (m) => {
  if (m.op === 'update') {
    let h = hashes.get(m.id);
    if (!h) hashes.set(m.id, (h = createHash('sha256')));
    h.update(new Uint8Array(m.block, 0, m.length));
    parentPort.postMessage({ op: 'hashed', id: m.id, slot: m.slot });
  } else if (m.op === 'digest') {
    const h = hashes.get(m.id) || createHash('sha256');
    hashes.delete(m.id);
    parentPort.postMessage({ op: 'digest', id: m.id, hex: h.digest('hex') });
  } else if (m.op === 'drop') {
    hashes.delete(m.id);
  }
});
`;

type WorkerReply = { op: 'hashed'; id: number; slot: number } | { op: 'digest'; id: number; hex: string };

interface StreamHandlers {
  hashed(): void;
  digest(hex: string): void;
  fail(err: Error): void;
}

/** One hash worker shared by every stream assigned to it; replies are routed by stream id. */
class HashWorker {
  private readonly streams = new Map<number, StreamHandlers>();
  private nextId = 1;
  dead = false;

  private constructor(private readonly worker: Worker) {
    // Referenced only while a stream is open: an awaited digest keeps the process alive, an idle
    // worker never keeps the CLI or a test process from exiting.
    worker.unref();
    worker.on('message', (m: WorkerReply) => {
      // A hashed block goes back to the pool even when its stream was discarded meanwhile.
      if (m.op === 'hashed') blockPool.release(m.slot);
      const s = this.streams.get(m.id);
      if (!s) return;
      if (m.op === 'hashed') s.hashed();
      else s.digest(m.hex);
    });
    const die = (err: Error) => {
      this.dead = true;
      for (const s of this.streams.values()) s.fail(err);
      this.streams.clear();
    };
    worker.on('error', (e) => die(new Error(`SHA-256 worker failed: ${e.message}`)));
    worker.on('exit', (code) => die(new Error(`SHA-256 worker exited (code ${code})`)));
  }

  static start(): HashWorker | null {
    try {
      return new HashWorker(new Worker(WORKER_SOURCE, { eval: true }));
    } catch {
      return null; // no worker threads here: hash on the main thread instead
    }
  }

  open(handlers: StreamHandlers): number {
    const id = this.nextId++;
    this.streams.set(id, handlers);
    if (this.streams.size === 1) this.worker.ref();
    return id;
  }

  close(id: number, drop: boolean): void {
    if (!this.streams.delete(id)) return;
    if (drop) this.post({ op: 'drop', id });
    if (this.streams.size === 0) this.worker.unref();
  }

  post(message: object): void {
    this.worker.postMessage(message);
  }

  get load(): number {
    return this.streams.size;
  }
}

/** Never more workers than this, whatever the options say. */
export const MAX_HASH_WORKERS = 8;

/**
 * How many hash workers to use when the options do not say. A worker only pays where a core is
 * free for it: on the 2-core bench machine, where the service and the page-cache writes already
 * keep both cores busy, it made the bulk sync no faster (0.99-1.05x the main-thread time in the
 * bench, up to 15% slower in paired runs: the copy to the worker and the hash compete for the
 * same cores; bench/NOTES.md), so machines with fewer than 4 cores hash on the main thread.
 * The CLI lets DATASET_SYNC_HASH_WORKERS=N override it (0 = never), for tests and benchmarks.
 */
export function defaultHashWorkers(): number {
  const cores = os.availableParallelism();
  return cores >= 4 ? Math.min(4, cores - 2) : 0;
}

/** Hash workers alive now (diagnostics and tests). */
export function runningHashWorkers(): number {
  return hashWorkers.workers.filter((w) => !w.dead).length;
}

/** Up to `limit` workers, started on first use; a stream goes to an idle or the least loaded one. */
const hashWorkers = {
  workers: [] as HashWorker[],
  next(limit: number): HashWorker | null {
    this.workers = this.workers.filter((w) => !w.dead);
    const idle = this.workers.find((w) => w.load === 0);
    if (idle) return idle;
    if (this.workers.length < limit) {
      const w = HashWorker.start();
      if (w) {
        this.workers.push(w);
        return w;
      }
    }
    return this.workers.length === 0 ? null : this.workers.reduce((a, b) => (b.load < a.load ? b : a));
  },
};

/**
 * Blocks are shared by all streams and reused: a worker keeps a SharedArrayBuffer's memory
 * alive until its own (rare) garbage collection, so fresh blocks per file would pile up.
 */
const blockPool = {
  blocks: [] as Buffer[],
  free: [] as number[],
  take(): number {
    const slot = this.free.pop();
    if (slot !== undefined) return slot;
    this.blocks.push(Buffer.from(new SharedArrayBuffer(BLOCK_BYTES)));
    return this.blocks.length - 1;
  },
  release(slot: number): void {
    this.free.push(slot);
  },
};

class WorkerSha256 implements Sha256Stream {
  private readonly id: number;
  private inFlight = 0;
  private current = -1;
  private fill = 0;
  private failure: Error | undefined;
  private waiters: Array<() => void> = [];
  private onDigest: ((hex: string) => void) | undefined;
  private onFail: ((err: Error) => void) | undefined;
  private closed = false;

  constructor(private readonly worker: HashWorker) {
    this.id = worker.open({
      hashed: () => {
        this.inFlight--;
        if (!this.backlogged) this.wake();
      },
      digest: (hex) => this.onDigest?.(hex),
      fail: (err) => {
        this.failure = err;
        this.onFail?.(err);
        this.wake();
      },
    });
  }

  get backlogged(): boolean {
    return this.failure === undefined && this.inFlight >= MAX_BLOCKS;
  }

  update(chunk: Buffer): void {
    let off = 0;
    while (off < chunk.length) {
      if (this.current < 0) this.current = blockPool.take();
      const block = blockPool.blocks[this.current]!;
      const n = chunk.copy(block, this.fill, off);
      off += n;
      this.fill += n;
      if (this.fill === BLOCK_BYTES) this.send();
    }
  }

  private send(): void {
    if (this.current < 0 || this.fill === 0) return;
    this.inFlight++;
    this.worker.post({ op: 'update', id: this.id, block: blockPool.blocks[this.current]!.buffer, length: this.fill, slot: this.current });
    this.current = -1;
    this.fill = 0;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  drained(): Promise<void> {
    if (!this.backlogged) return Promise.resolve();
    return new Promise((r) => this.waiters.push(r));
  }

  digest(): Promise<string> {
    if (this.failure) return Promise.reject(this.failure);
    this.send();
    return new Promise<string>((resolve, reject) => {
      this.onDigest = (hex) => {
        this.close(false);
        resolve(hex);
      };
      this.onFail = (err) => {
        this.close(false);
        reject(err);
      };
      this.worker.post({ op: 'digest', id: this.id });
    });
  }

  digestNow(): undefined {
    return undefined;
  }

  discard(): void {
    this.close(true);
  }

  private close(drop: boolean): void {
    if (this.closed) return;
    this.closed = true;
    if (this.current >= 0) blockPool.release(this.current);
    this.current = -1;
    this.worker.close(this.id, drop);
  }
}

// What an in-memory destination holds (memory-destination.ts), kept apart from the destination
// object so that opening the same name twice in one process reaches the same objects, held bytes
// and lock, as two opens of one bucket or folder do. For tests only.

/** One object: its bytes (never changed in place: a write stores new bytes), its stamp and, for a committed upload, the SHA-256 it was checked against. */
export interface StoredObject {
  readonly bytes: Buffer;
  readonly stamp: string;
  readonly sha256?: string;
}

export class MemoryStore {
  /** Objects by key. */
  readonly objects = new Map<string, StoredObject>();
  /** Bytes of uploads not committed, by resume key (a folder's part files, a bucket's open multipart uploads). */
  readonly held = new Map<string, Buffer[]>();
  locked = false;
}

const stores = new Map<string, MemoryStore>();

/** The store of `name` in this process, made on first use. */
export function memoryStore(name: string): MemoryStore {
  let store = stores.get(name);
  if (!store) stores.set(name, (store = new MemoryStore()));
  return store;
}

/** Forgets the store of `name` (a test's cleanup): the next open starts empty. */
export function forgetMemoryStore(name: string): void {
  stores.delete(name);
}

let lastStamp = 0;

/** A stamp no object of this process had before: every write gives its object a new one. */
export function nextStamp(): string {
  return String(++lastStamp);
}

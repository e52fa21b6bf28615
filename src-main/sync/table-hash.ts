// The SHA-256 of a dataset table (manifest.csv, participants.csv) as a state a later sync can
// continue (issue 21: a sync that brings 10 new sets costs what changed, at any size).
// croissant.json names each table's SHA-256. A sync that only appends rows used to read each table
// whole to hash it again: at a million files 238 MB of manifest, most of what a +10 sync cost
// above a no-op (and at 100,000 sets 0.45 s of its 0.9 s end). Now the hash state after the
// table's last byte is recorded with it (research-files.ts), and an append continues it over the
// appended bytes only. Node's crypto cannot export a hash's state; hash-wasm can (save/load).
// It hashes at about 380 MB/s here against Node's 1,600, which the end of a sync that writes the
// tables whole pays (about 0.5 s at a million files: 21.3 and 25.4 s against 20.4 and 25.0 s).
//
// A state holds the hash's unprocessed last block: up to 63 bytes of the table's last row, which
// is in the dataset folder beside the state anyway (no consent text ever goes into a table).
import { createSHA256, type IHasher } from 'hash-wasm';

/** A table's SHA-256 (hex) and, base64, the state that continues it (hash-wasm's save()). */
export interface TableHash {
  sha256: string;
  state: string;
}

export class ResumableSha256 {
  private constructor(private readonly hasher: IHasher) {}

  static async start(): Promise<ResumableSha256> {
    const hasher = await createSHA256();
    hasher.init();
    return new ResumableSha256(hasher);
  }

  /** The hash continued from `state`; null when it cannot be (a state of another hash-wasm version, or damaged): hash the table whole. */
  static async resume(state: string): Promise<ResumableSha256 | null> {
    const hasher = await createSHA256();
    try {
      hasher.load(Buffer.from(state, 'base64'));
    } catch {
      return null;
    }
    return new ResumableSha256(hasher);
  }

  update(chunk: Uint8Array | string): void {
    this.hasher.update(chunk);
  }

  /** The SHA-256 of every byte given, and the state to continue it from. */
  finish(): TableHash {
    const state = Buffer.from(this.hasher.save()).toString('base64');
    return { sha256: this.hasher.digest('hex'), state };
  }
}

/** `chunks`, each also fed to `hash` as it passes. */
export async function* hashedAsWritten(chunks: AsyncIterable<Buffer>, hash: ResumableSha256): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    hash.update(chunk);
    yield chunk;
  }
}

/** The hash of `before` (a state recorded with the table) continued over `tail`, the bytes appended since; null when the state is missing or cannot be loaded. */
export async function continuedHash(before: string | undefined, tail: string | Uint8Array): Promise<TableHash | null> {
  if (before === undefined) return null;
  const hash = await ResumableSha256.resume(before);
  if (hash === null) return null;
  hash.update(tail);
  return hash.finish();
}

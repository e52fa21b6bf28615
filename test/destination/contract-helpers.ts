// What the destination contract's suites share (contract.ts, contract-capabilities.ts): bodies,
// hashes and small steps of an upload.
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { DestinationError, type ExpectedBody } from '../../src-main/sync/destination/destination';

/** Deterministic bytes (not all equal, so a shifted or reordered range is caught). */
export function bodyOf(size: number, seed = 1): Buffer {
  const out = Buffer.allocUnsafe(size);
  let x = seed * 2654435761 >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

export function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

export async function readAll(it: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of it) parts.push(c);
  return Buffer.concat(parts);
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const v of it) out.push(v);
  return out;
}

export function expectation(body: Buffer, resumeKey: string): ExpectedBody {
  return { size: body.length, sha256: sha256(body), resumeKey };
}

/** Writes `bytes` in chunks of at most `chunk`, from `from`. */
export async function writeIn(upload: { write(c: readonly Buffer[], p: number): Promise<number> }, bytes: Buffer, from: number, to: number, chunk = 1 << 20): Promise<void> {
  for (let p = from; p < to; ) {
    const end = Math.min(to, p + chunk);
    p += await upload.write([bytes.subarray(p, end)], p);
  }
}

export async function rejectsWith(p: Promise<unknown>, kind: string): Promise<DestinationError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e, `expected a DestinationError '${kind}'`).toBeInstanceOf(DestinationError);
  expect((e as DestinationError).kind).toBe(kind);
  return e as DestinationError;
}

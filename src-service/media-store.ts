// Writes the media file bodies to disk once and serves them from there.
//
// Synthetic bodies are not decodable video; only their sizes, names and SHA-256 are real. They
// are cut from one seeded 1 MiB block, rotated and stamped differently per file and per block,
// so every file differs while generation costs little more than the hashing and the disk write.
// Real video bodies of a size (video-bodies.ts) are cached the same way, written by their own writer.
// Seeded files are cached under the data dir keyed by everything that shapes them; a second
// start with the same options reuses them after checking sizes (not hashes).

import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { createPrng, mixSeed } from './prng';

const BLOCK = 1024 * 1024;
const STAMP = 16;
/** Bodies up to this size are built in memory and written in one call (fast for many small files). */
const IN_MEMORY_LIMIT = 4 * BLOCK;
const MANIFEST = 'manifest.json';
const CACHE_FORMAT = 'v1';

export interface StoredBody {
  path: string;
  size: number;
  sha256: string;
}

export interface BodySpec {
  /** File name inside its folder; unique per body. */
  name: string;
  size: number;
  /** Distinguishes bodies: the same variant and size always give the same bytes. */
  variant: number;
}

/** Writes one body to `file` (a temp name the store renames) and returns its SHA-256. */
export type BodyWriter = (file: string, spec: BodySpec) => Promise<string>;

export class MediaStore {
  private readonly doubledBlock: Buffer;
  private readonly runtimeDir: string;
  private runtimeDirReady = false;

  constructor(
    private readonly dataDir: string,
    seed: number,
  ) {
    const block = Buffer.allocUnsafe(BLOCK);
    const next = createPrng(mixSeed(seed, 0x5eed));
    for (let i = 0; i < BLOCK; i += 4) block.writeUInt32LE(Math.floor(next() * 0x100000000), i);
    // Twice the block, so any rotation of it is one zero-copy subarray.
    this.doubledBlock = Buffer.concat([block, block]);
    this.runtimeDir = path.join(dataDir, `runtime-${process.pid}-${randomBytes(4).toString('hex')}`);
  }

  /**
   * Seeded bodies, cached in `dataDir/<cacheKey>/`. Returns one entry per spec, by name. `fill`
   * writes a body other than the synthetic one (video-bodies.ts) to the path it is given and
   * returns its SHA-256; the cache key must then name what shapes its bytes.
   */
  async prepareCached(cacheKey: string, specs: BodySpec[], fill?: BodyWriter): Promise<Map<string, StoredBody>> {
    const dir = path.join(this.dataDir, `${CACHE_FORMAT}-${cacheKey}`);
    await fsp.mkdir(dir, { recursive: true });
    const known = readManifest(path.join(dir, MANIFEST));
    const result = new Map<string, StoredBody>();
    let changed = false;
    for (const spec of specs) {
      const filePath = path.join(dir, spec.name);
      const entry = known[spec.name];
      if (entry && entry.size === spec.size && entry.variant === spec.variant && sizeOnDisk(filePath) === spec.size) {
        result.set(spec.name, { path: filePath, size: spec.size, sha256: entry.sha256 });
        continue;
      }
      const sha256 = await this.writeBody(filePath, spec, fill);
      known[spec.name] = { size: spec.size, variant: spec.variant, sha256 };
      result.set(spec.name, { path: filePath, size: spec.size, sha256 });
      changed = true;
    }
    if (changed) writeFileAtomic(path.join(dir, MANIFEST), JSON.stringify(known));
    return result;
  }

  /** A body made while running (admin mutations): kept in a per-instance folder removed by dispose(). */
  async createRuntimeBody(spec: BodySpec): Promise<StoredBody> {
    if (!this.runtimeDirReady) {
      await fsp.mkdir(this.runtimeDir, { recursive: true });
      this.runtimeDirReady = true;
    }
    const filePath = path.join(this.runtimeDir, spec.name);
    const sha256 = await this.writeBody(filePath, spec);
    return { path: filePath, size: spec.size, sha256 };
  }

  async dispose(): Promise<void> {
    await fsp.rm(this.runtimeDir, { recursive: true, force: true });
  }

  /** Writes through a temp name and renames, so a concurrent reader (another instance sharing the cache) never sees half a file. */
  private async writeBody(filePath: string, spec: BodySpec, fill?: BodyWriter): Promise<string> {
    const tmp = `${filePath}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    const hash = createHash('sha256');
    try {
      if (fill) {
        const sha256 = await fill(tmp, spec);
        fs.renameSync(tmp, filePath);
        return sha256;
      }
      if (spec.size <= IN_MEMORY_LIMIT) {
        const body = Buffer.concat([...this.chunks(spec)], spec.size);
        hash.update(body);
        fs.writeFileSync(tmp, body);
      } else {
        const handle = await fsp.open(tmp, 'w');
        try {
          for (const chunk of this.chunks(spec)) {
            hash.update(chunk);
            await handle.write(chunk);
          }
        } finally {
          await handle.close();
        }
      }
      fs.renameSync(tmp, filePath);
    } catch (error) {
      fs.rmSync(tmp, { force: true });
      throw error;
    }
    return hash.digest('hex');
  }

  /** The body as a series of chunks: per 1 MiB block a 16-byte stamp plus a rotated slice of the seeded block. */
  private *chunks(spec: BodySpec): Generator<Buffer> {
    for (let offset = 0, blockIndex = 0; offset < spec.size; offset += BLOCK, blockIndex++) {
      const length = Math.min(BLOCK, spec.size - offset);
      const stamp = Buffer.alloc(STAMP);
      stamp.writeUInt32LE(spec.variant >>> 0, 0);
      stamp.writeUInt32LE(blockIndex >>> 0, 4);
      stamp.writeUInt32LE(mixSeed(spec.variant, blockIndex), 8);
      stamp.writeUInt32LE(spec.size % 0x100000000, 12);
      const stampLength = Math.min(STAMP, length);
      yield stamp.subarray(0, stampLength);
      if (length > stampLength) {
        const rotation = mixSeed(spec.variant, blockIndex, 0xb10c) % BLOCK;
        yield this.doubledBlock.subarray(rotation, rotation + length - stampLength);
      }
    }
  }
}

interface ManifestEntry {
  size: number;
  variant: number;
  sha256: string;
}

function readManifest(file: string): Record<string, ManifestEntry> {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, ManifestEntry>) : {};
  } catch {
    return {};
  }
}

function sizeOnDisk(file: string): number | undefined {
  try {
    return fs.statSync(file).size;
  } catch {
    return undefined;
  }
}

function writeFileAtomic(file: string, content: string): void {
  const tmp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}

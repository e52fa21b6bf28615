// Large collections generated on request (`lazy: true`): the main collection's accepted sets are
// a formula of their position in the feed, not records. Nothing per set or per file is held:
// a set, its files, consents and bodies are rebuilt from (set id, slot) whenever a request
// needs them, and a page of the feed is computed from its offset. So 250,000 sets x 4 files
// cost the same memory as 10 (benchmarks at a million files need a service that fits beside
// the client on a 2-core machine).

import { createHash } from 'node:crypto';
import type { CollectionRecord, ConsentRecord, FileRecord, ParticipantRecord, SetRecord } from './model';
import { createPrng, createRandom, mixSeed } from './prng';
import { fileNameFor, quotaGroupsFor } from './demo-data';

/** Largest body a lazy collection serves: each listed file's SHA-256 is computed from its body on every listing. */
export const LAZY_MAX_FILE_SIZE = 64 * 1024;
/** The first lazy set's acceptance; one set every STEP_MS after it (1,000,000 sets end in December 2025). */
const START = Date.UTC(2025, 0, 1, 0, 0, 0);
const STEP_MS = 30_000;
const HOUR = 3_600_000;
const BLOCK = 64 * 1024;
const STAMP = 16;
/** Participants the sets draw their pairs from (ids from the store's participant range). */
const POOL = 64;
const SIGNERS = ['Hana Novak', 'Ravi Menon', 'Greta Olsen', 'Tunde Bakare', 'Lucía Romero', 'Wen Li', 'Marek Zielinski', 'Aisha Rahman'];

export interface LazyIds {
  set: number;
  file: number;
  participant: number;
  consent: number;
}

export class LazyCollection {
  readonly collectionId: number;
  private readonly doubledBlock: Buffer;
  private readonly pool: Array<Omit<ParticipantRecord, 'role' | 'consentId'>> = [];
  /** Accepted lazy sets per quota value (the lead's group), counted once at start. */
  readonly quotaTally = new Map<string, number>();

  /**
   * Takes `count` set ids, `count * slots` file ids, `2 * count` consent ids and POOL participant
   * ids from `ids` (which it advances), so live ids of the store never meet lazy ones.
   */
  constructor(
    private readonly collection: CollectionRecord,
    readonly count: number,
    private readonly seed: number,
    private readonly base: LazyIds,
  ) {
    if (collection.fileSize === null || collection.fileSize < 1 || collection.fileSize > LAZY_MAX_FILE_SIZE) {
      throw new RangeError(`a lazy collection needs a file size from 1 to ${LAZY_MAX_FILE_SIZE} bytes, got ${collection.fileSize}`);
    }
    this.collectionId = collection.id;
    const block = Buffer.allocUnsafe(BLOCK);
    const next = createPrng(mixSeed(seed, 0x1a2e));
    for (let i = 0; i < BLOCK; i += 4) block.writeUInt32LE(Math.floor(next() * 0x100000000), i);
    this.doubledBlock = Buffer.concat([block, block]);
    const rand = createRandom(mixSeed(seed, 0x1a2f));
    const genders = quotaGroupsFor('gender');
    const ethnicities = quotaGroupsFor('ethnicity');
    for (let p = 0; p < POOL; p++) {
      this.pool.push({ id: base.participant + p, participantRef: `pr_${rand.hex(12)}`, age: rand.int(18, 72), gender: rand.pick(genders).value, ethnicity: rand.pick(ethnicities).value });
    }
    for (let i = 0; i < count; i++) {
      const value = this.quotaValue(this.leadOf(i));
      this.quotaTally.set(value, (this.quotaTally.get(value) ?? 0) + 1);
    }
  }

  /** The id counters after the lazy ranges. */
  static reserve(ids: LazyIds, count: number, slots: number): LazyIds {
    return { set: ids.set + count, file: ids.file + count * slots, participant: ids.participant + POOL, consent: ids.consent + 2 * count };
  }

  private get slots(): number {
    return this.collection.slots.length;
  }

  private quotaValue(person: Omit<ParticipantRecord, 'role' | 'consentId'>): string {
    return this.collection.quotaField === 'gender' ? person.gender : person.ethnicity;
  }

  private leadOf(index: number): Omit<ParticipantRecord, 'role' | 'consentId'> {
    return this.pool[mixSeed(this.seed, index, 0x1ead) % POOL]!;
  }

  private partnerOf(index: number): Omit<ParticipantRecord, 'role' | 'consentId'> {
    const lead = mixSeed(this.seed, index, 0x1ead) % POOL;
    return this.pool[(lead + 1 + (mixSeed(this.seed, index, 0xb) % (POOL - 1))) % POOL]!;
  }

  /** Position in the feed of a lazy set id, or undefined. */
  indexOfSet(setId: number): number | undefined {
    const i = setId - this.base.set;
    return Number.isInteger(i) && i >= 0 && i < this.count ? i : undefined;
  }

  /** First feed position whose updated_at is strictly after `since` (epoch ms, fractions allowed). */
  firstUpdatedAfter(since: number | undefined): number {
    if (since === undefined) return 0;
    const i = Math.floor((since - START) / STEP_MS) + 1;
    return Math.min(this.count, Math.max(0, i));
  }

  /** The set at feed position `index` (0 = oldest), built now; its files carry their bodies. */
  setAt(index: number): SetRecord {
    const setId = this.base.set + index;
    const acceptedAt = START + index * STEP_MS;
    const submittedAt = acceptedAt - 2 * HOUR;
    const participants: ParticipantRecord[] = [this.leadOf(index), this.partnerOf(index)].map((person, p) => ({
      ...person,
      role: p === 0 ? 'A' : 'B',
      consentId: this.base.consent + index * 2 + p,
    }));
    const files: FileRecord[] = this.collection.slots.map((slot, s) => this.fileAt(index, s, slot));
    return { id: setId, collectionId: this.collectionId, status: 'accepted', submittedAt, acceptedAt, updatedAt: acceptedAt, isGold: index % 8 === 3, participants, files };
  }

  /** The file of slot position `s` (the collection's `s`-th slot) of the set at feed position `index`. */
  private fileAt(index: number, s: number, slot: { index: number; key: string }): FileRecord {
    const setId = this.base.set + index;
    const bytes = this.body(setId, slot.index);
    return {
      id: this.base.file + index * this.slots + s,
      setId,
      slotIndex: slot.index,
      slotKey: slot.key,
      filename: fileNameFor(setId, slot.index, this.collection.fileExt),
      contentType: this.collection.contentType,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      diskPath: '',
      bytes,
      media: { width: 1920, height: 1080, fps: 30, duration: 10 + (mixSeed(setId, slot.index) % 50), codec: 'h264' },
      version: 0,
    };
  }

  /**
   * A file of a lazy set by id, built now (with its body), or undefined. Only that file is built:
   * a file request needs one body and one SHA-256 (its ETag), not the whole set's four.
   */
  fileById(fileId: number): FileRecord | undefined {
    const offset = fileId - this.base.file;
    if (!Number.isInteger(offset) || offset < 0 || offset >= this.count * this.slots) return undefined;
    const index = Math.floor(offset / this.slots);
    const s = offset % this.slots;
    const slot = this.collection.slots[s];
    return slot && this.fileAt(index, s, slot);
  }

  consentById(consentId: number): ConsentRecord | undefined {
    const offset = consentId - this.base.consent;
    if (!Number.isInteger(offset) || offset < 0 || offset >= this.count * 2) return undefined;
    const index = Math.floor(offset / 2);
    const person = offset % 2 === 0 ? this.leadOf(index) : this.partnerOf(index);
    return {
      id: consentId,
      version: this.collection.consentVersion,
      signedAt: START + index * STEP_MS - 3 * HOUR,
      signerName: SIGNERS[mixSeed(this.seed, person.id) % SIGNERS.length]!,
      setId: this.base.set + index,
      participantId: person.id,
      participantRef: person.participantRef,
      releaseText: this.collection.releaseText,
    };
  }

  /** The body of (set, slot): a 16-byte stamp naming them, then a rotated slice of the seeded block. */
  body(setId: number, slotIndex: number): Buffer {
    const size = this.collection.fileSize ?? 0;
    const stamp = Buffer.alloc(STAMP);
    stamp.writeUInt32LE(setId >>> 0, 0);
    stamp.writeUInt32LE(slotIndex >>> 0, 4);
    stamp.writeUInt32LE(this.seed >>> 0, 8);
    stamp.writeUInt32LE(size >>> 0, 12);
    if (size <= STAMP) return stamp.subarray(0, size);
    const rotation = mixSeed(this.seed, setId, slotIndex) % BLOCK;
    return Buffer.concat([stamp, this.doubledBlock.subarray(rotation, rotation + size - STAMP)], size);
  }
}

// Media fault switches: a file whose video breaks the collection's media_rules (too small, too
// short, a format the collection does not take) with a true listing, or a file whose listing
// lies about its video (dimensions, codec). Off by default, so the demo collection is clean;
// switched on and off through the admin interface like the request faults (faults.ts), but they
// change data, not one answer: the file serves another clip and its set's updated_at moves, as
// any edit after acceptance does, so an incremental sync sees the change.

import type { ClipLibrary, ClipRole } from '../clips';
import type { FileRecord, MediaProbe, SetRecord } from '../model';
import { cleanClipFor, putClip } from '../real-media';
import type { Store } from '../store';

export const MEDIA_FAULT_KINDS = ['too_small', 'too_short', 'wrong_format', 'listing_lies', 'wrong_codec'] as const;
export type MediaFaultKind = (typeof MEDIA_FAULT_KINDS)[number];

export interface MediaFaultEntry {
  id: number;
  kind: MediaFaultKind;
  set_id: number;
  slot_index: number;
  file_id: number;
}

type Snapshot = Pick<FileRecord, 'clip' | 'diskPath' | 'filename' | 'contentType' | 'size' | 'sha256' | 'media' | 'version'>;

interface Active {
  entry: MediaFaultEntry;
  set: SetRecord;
  file: FileRecord;
  before: Snapshot;
}

/** Rule-breaking kinds serve a clip of that role; the listing kinds keep the bytes and lie. */
const ROLE: Partial<Record<MediaFaultKind, ClipRole>> = { too_small: 'too_small', too_short: 'too_short', wrong_format: 'wrong_format' };

export interface MediaFaultRequest {
  kind: MediaFaultKind;
  setId?: number;
  slotIndex?: number;
}

export class MediaFaults {
  private readonly active: Active[] = [];
  private nextId = 1;

  constructor(private readonly seed: number) {}

  list(): MediaFaultEntry[] {
    return this.active.map((a) => ({ ...a.entry }));
  }

  /**
   * Switches a fault on for one file: the given set and slot (default slot 1), or by default
   * slot 1 of the main collection's n-th accepted set in feed order (n = the kind's place in
   * MEDIA_FAULT_KINDS), moving on past files that already have a fault. `now` undefined (at
   * start) leaves updated_at alone. Returns the entry, or why not.
   */
  add(store: Store, clips: ClipLibrary, req: MediaFaultRequest, now: number | undefined): MediaFaultEntry | string {
    const target = this.target(store, req);
    if (typeof target === 'string') return target;
    const { set, file } = target;
    const collection = store.collections.get(set.collectionId);
    if (!collection) return `set ${set.id} has no collection`;
    const before: Snapshot = { clip: file.clip, diskPath: file.diskPath, filename: file.filename, contentType: file.contentType, size: file.size, sha256: file.sha256, media: file.media, version: file.version };
    const role = ROLE[req.kind];
    if (role) {
      const clip = clips.ofRole(role, collection.mediaRules.formats);
      if (!clip) return `no demo clip for ${req.kind}`;
      file.version++;
      putClip(file, clip, this.seed);
    } else {
      // A lie needs a true body to lie about: a synthetic body becomes a clean clip first.
      if (!file.clip) {
        file.version++;
        putClip(file, cleanClipFor(clips, collection, file.id, this.seed), this.seed);
      }
      file.media = lie(req.kind, file.media);
    }
    if (now !== undefined) store.fileChanged(set, now);
    const entry: MediaFaultEntry = { id: this.nextId++, kind: req.kind, set_id: set.id, slot_index: file.slotIndex, file_id: file.id };
    this.active.push({ entry, set, file, before });
    return { ...entry };
  }

  /** Switches one fault off: the file is as it was before (same bytes, same listing). */
  remove(store: Store, id: number, now: number): boolean {
    const index = this.active.findIndex((a) => a.entry.id === id);
    const active = this.active[index];
    if (!active) return false;
    this.active.splice(index, 1);
    Object.assign(active.file, active.before);
    store.fileChanged(active.set, now);
    return true;
  }

  clear(store: Store, now: number): void {
    for (const id of this.active.map((a) => a.entry.id).reverse()) this.remove(store, id, now);
  }

  private target(store: Store, req: MediaFaultRequest): { set: SetRecord; file: FileRecord } | string {
    const taken = (file: FileRecord): boolean => this.active.some((a) => a.file === file);
    if (req.setId !== undefined) {
      const set = store.set(req.setId);
      if (!set) return `set ${req.setId} not found`;
      const slotIndex = req.slotIndex ?? 1;
      const file = set.files.find((f) => f.slotIndex === slotIndex);
      if (!file) return `set ${set.id} has no slot_index ${slotIndex}`;
      if (taken(file)) return `file ${file.id} (set ${set.id}, slot ${slotIndex}) already has a media fault`;
      return { set, file };
    }
    const mainId = [...store.collectionIdsByClient.values()][0]?.[0];
    const sets = mainId === undefined ? [] : store.setsInOrder(mainId, 'accepted');
    const start = MEDIA_FAULT_KINDS.indexOf(req.kind);
    for (let i = 0; i < sets.length; i++) {
      const set = sets[(start + i) % sets.length];
      const file = set?.files.find((f) => f.slotIndex === (req.slotIndex ?? 1));
      if (set && file && !taken(file)) return { set, file };
    }
    return 'no accepted set of the main collection is left for a media fault';
  }
}

function lie(kind: MediaFaultKind, truth: MediaProbe): MediaProbe {
  if (kind === 'wrong_codec') return { ...truth, codec: truth.codec === 'h264' ? 'hevc' : 'h264' };
  return { ...truth, width: 1920, height: 1080 };
}

export function parseMediaFaultRequest(body: unknown): MediaFaultRequest | string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'body must be a JSON object {kind, set_id?, slot_index?}';
  const b = body as Record<string, unknown>;
  if (typeof b.kind !== 'string' || !(MEDIA_FAULT_KINDS as readonly string[]).includes(b.kind)) return `kind must be one of ${MEDIA_FAULT_KINDS.join(', ')}`;
  const out: MediaFaultRequest = { kind: b.kind as MediaFaultKind };
  for (const [field, key] of [
    ['set_id', 'setId'],
    ['slot_index', 'slotIndex'],
  ] as const) {
    const v = b[field];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) return `${field} must be a positive integer`;
    out[key] = v;
  }
  return out;
}

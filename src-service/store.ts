// The service's state of record while running: seeded data plus admin mutations.
// Everything that answers "what may this key see" lives here, so the routes stay thin.

import { fileNameFor, quotaGroupsFor, quotaValueOf, type DemoData } from './demo-data';
import type { LazyCollection } from './lazy-collection';
import type { ApiKeyRecord, ClientAccount, CollectionRecord, ConsentRecord, FileRecord, SetRecord, SetStatus } from './model';

export type KeyCheck = { ok: true; key: ApiKeyRecord; client: ClientAccount } | { ok: false; reason: string };

export class Store {
  readonly clients = new Map<number, ClientAccount>();
  private readonly keys = new Map<string, ApiKeyRecord>();
  readonly collections = new Map<number, CollectionRecord>();
  readonly collectionIdsByClient: Map<number, number[]>;
  private readonly sets = new Map<number, SetRecord>();
  private readonly setsByCollection = new Map<number, SetRecord[]>();
  private readonly files = new Map<number, FileRecord>();
  private readonly consents = new Map<number, ConsentRecord>();
  private readonly nextIds: DemoData['nextIds'];
  /** Bumped on every change; keys the cached sort orders. */
  private revision = 0;
  private readonly orderCache = new Map<string, { revision: number; sets: SetRecord[] }>();

  /** `lazy` (optional): accepted sets of one collection generated on request, listed before its real ones. */
  constructor(
    data: DemoData,
    private readonly lazy?: LazyCollection,
  ) {
    for (const client of data.clients) this.clients.set(client.id, client);
    for (const key of data.keys) this.keys.set(key.secret, key);
    for (const collection of data.collections) {
      this.collections.set(collection.id, collection);
      this.setsByCollection.set(collection.id, []);
    }
    this.collectionIdsByClient = data.collectionsByClient;
    for (const set of data.sets) this.addSet(set);
    for (const consent of data.consents) this.consents.set(consent.id, consent);
    this.nextIds = { ...data.nextIds };
  }

  checkKey(secret: string, now: number): KeyCheck {
    const key = this.keys.get(secret);
    if (!key) return { ok: false, reason: 'unknown API key' };
    if (key.revoked) return { ok: false, reason: 'API key has been revoked' };
    if (key.expiresAt !== null && key.expiresAt <= now) return { ok: false, reason: 'API key has expired' };
    const client = this.clients.get(key.clientId);
    if (!client) return { ok: false, reason: 'unknown API key' };
    return { ok: true, key, client };
  }

  revokeKey(secret: string): boolean {
    const key = this.keys.get(secret);
    if (!key) return false;
    key.revoked = true;
    return true;
  }

  allSets(): IterableIterator<SetRecord> {
    return this.sets.values();
  }

  // --- scoped lookups: undefined whenever the caller may not see the thing (404, never 403) ---

  collectionsOf(clientId: number): CollectionRecord[] {
    return [...this.collections.values()]
      .filter((c) => c.clientId === clientId)
      .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
  }

  collectionFor(clientId: number, collectionId: number): CollectionRecord | undefined {
    const collection = this.collections.get(collectionId);
    return collection && collection.clientId === clientId ? collection : undefined;
  }

  setIn(collection: CollectionRecord, setId: number): SetRecord | undefined {
    const lazyIndex = this.lazy?.collectionId === collection.id ? this.lazy.indexOfSet(setId) : undefined;
    if (lazyIndex !== undefined) return this.lazy?.setAt(lazyIndex);
    const set = this.sets.get(setId);
    return set && set.collectionId === collection.id ? set : undefined;
  }

  /** A file is served only when its set is accepted and belongs to one of the caller's collections. */
  servableFile(clientId: number, fileId: number): FileRecord | undefined {
    const lazyFile = this.lazy?.fileById(fileId);
    if (lazyFile && this.lazy) return this.collectionFor(clientId, this.lazy.collectionId) ? lazyFile : undefined;
    const file = this.files.get(fileId);
    const set = file && this.sets.get(file.setId);
    if (!file || !set || set.status !== 'accepted') return undefined;
    return this.collectionFor(clientId, set.collectionId) ? file : undefined;
  }

  servableConsent(clientId: number, consentId: number): ConsentRecord | undefined {
    const lazyConsent = this.lazy?.consentById(consentId);
    if (lazyConsent && this.lazy) return this.collectionFor(clientId, this.lazy.collectionId) ? lazyConsent : undefined;
    const consent = this.consents.get(consentId);
    const set = consent && this.sets.get(consent.setId);
    if (!consent || !set || set.status !== 'accepted') return undefined;
    return this.collectionFor(clientId, set.collectionId) ? consent : undefined;
  }

  consent(consentId: number): ConsentRecord | undefined {
    return this.consents.get(consentId) ?? this.lazy?.consentById(consentId);
  }

  // --- feeds ---

  /**
   * Sets of one status in feed order. Accepted: by accepted_at, oldest first, ties by id (the
   * spec's rule, so a page walk stays stable while sets are accepted). Other statuses (order
   * not shown in the spec; our choice): by updated_at, oldest first, ties by id.
   */
  setsInOrder(collectionId: number, status: SetStatus): SetRecord[] {
    const cacheKey = `${collectionId}:${status}`;
    const cached = this.orderCache.get(cacheKey);
    if (cached && cached.revision === this.revision) return cached.sets;
    const all = this.setsByCollection.get(collectionId) ?? [];
    const sets = all.filter((s) => s.status === status);
    if (status === 'accepted') sets.sort((a, b) => (a.acceptedAt ?? 0) - (b.acceptedAt ?? 0) || a.id - b.id);
    else sets.sort((a, b) => a.updatedAt - b.updatedAt || a.id - b.id);
    this.orderCache.set(cacheKey, { revision: this.revision, sets });
    return sets;
  }

  /**
   * One status's feed after `since` (strictly), as a count and a way to cut a page: the lazy
   * sets of a lazy collection come first (they were accepted long before any live set), then
   * its real ones, so a page is computed from its offset and no list of every set is built.
   */
  feed(collectionId: number, status: SetStatus, since: number | undefined): { total: number; slice(start: number, end: number): SetRecord[] } {
    let real = this.setsInOrder(collectionId, status);
    if (since !== undefined) real = real.filter((s) => s.updatedAt > since);
    const lazy = this.lazy?.collectionId === collectionId && status === 'accepted' ? this.lazy : undefined;
    if (!lazy) return { total: real.length, slice: (start, end) => real.slice(start, end) };
    const first = lazy.firstUpdatedAfter(since);
    const lazyCount = lazy.count - first;
    return {
      total: lazyCount + real.length,
      slice: (start, end) => {
        const out: SetRecord[] = [];
        for (let k = Math.max(0, start); k < Math.min(end, lazyCount + real.length); k++) out.push(k < lazyCount ? lazy.setAt(first + k) : real[k - lazyCount]!);
        return out;
      },
    };
  }

  countsByStatus(collectionId: number): Record<SetStatus, number> {
    const counts: Record<SetStatus, number> = { accepted: 0, in_review: 0, in_progress: 0, rework: 0, rejected: 0 };
    if (this.lazy?.collectionId === collectionId) counts.accepted += this.lazy.count;
    for (const set of this.setsByCollection.get(collectionId) ?? []) counts[set.status]++;
    return counts;
  }

  /**
   * Quotas follow the sets: a set counts towards its lead's group; accepted sets are
   * `accepted`, sets still in play (in_review, in_progress, rework) are `reserved`.
   */
  quotasOf(collection: CollectionRecord): Array<{ value: string; label: string; target: number; accepted: number; reserved: number }> {
    const tallies = new Map<string, { accepted: number; reserved: number }>();
    for (const set of this.setsByCollection.get(collection.id) ?? []) {
      if (set.status === 'rejected') continue;
      const value = quotaValueOf(set, collection);
      const tally = tallies.get(value) ?? { accepted: 0, reserved: 0 };
      if (set.status === 'accepted') tally.accepted++;
      else tally.reserved++;
      tallies.set(value, tally);
    }
    if (this.lazy?.collectionId === collection.id) {
      for (const [value, accepted] of this.lazy.quotaTally) {
        const tally = tallies.get(value) ?? { accepted: 0, reserved: 0 };
        tally.accepted += accepted;
        tallies.set(value, tally);
      }
    }
    const labels = new Map(quotaGroupsFor(collection.quotaField).map((g) => [g.value, g.label]));
    return collection.quotaDefs.map((def) => ({
      value: def.value,
      label: labels.get(def.value) ?? def.label,
      target: def.target,
      ...(tallies.get(def.value) ?? { accepted: 0, reserved: 0 }),
    }));
  }

  // --- mutations (admin) ---

  set(setId: number): SetRecord | undefined {
    return this.sets.get(setId);
  }

  allocateIds(): { set: () => number; file: () => number; consent: () => number } {
    return {
      set: () => this.nextIds.set++,
      file: () => this.nextIds.file++,
      consent: () => this.nextIds.consent++,
    };
  }

  addSet(set: SetRecord): void {
    this.sets.set(set.id, set);
    this.setsByCollection.get(set.collectionId)?.push(set);
    for (const file of set.files) this.files.set(file.id, file);
    this.touch();
  }

  addConsent(consent: ConsentRecord): void {
    this.consents.set(consent.id, consent);
  }

  changeStatus(set: SetRecord, status: SetStatus, now: number): void {
    if (status === 'accepted' && set.status !== 'accepted') set.acceptedAt = now;
    set.status = status;
    set.updatedAt = now;
    this.touch();
  }

  replaceFileBody(set: SetRecord, file: FileRecord, body: { path: string; size: number; sha256: string }, now: number, filename?: string): void {
    file.diskPath = body.path;
    file.clip = undefined;
    file.size = body.size;
    file.sha256 = body.sha256;
    if (filename !== undefined) file.filename = filename;
    set.updatedAt = now;
    this.touch();
  }

  /** A file of the set changed in place (a media fault): the set's updated_at moves, as for any edit. */
  fileChanged(set: SetRecord, now: number): void {
    set.updatedAt = now;
    this.touch();
  }

  defaultFileName(set: SetRecord, slotIndex: number): string {
    const collection = this.collections.get(set.collectionId);
    return fileNameFor(set.id, slotIndex, collection?.fileExt ?? 'mp4');
  }

  private touch(): void {
    this.revision++;
  }
}

// The unit tests' double of the delivery service: an object implementing DeliveryClient
// (src-main/api/delivery-client.ts) that serves one collection's set records, consents and file
// bodies from memory, with the few faults the outcome tests need (a body that does not hash, a
// file that is gone). Paired with the in-memory destination, a sync runs without a socket or a
// file of the dataset, in tens of milliseconds. The integration tests keep the real reference
// service (test/engine/helpers.ts); this is not a second implementation of the API, only records.
import { createHash } from 'node:crypto';
import type { BodyFlow, DeliveryClient, FileBodySink, FileResponseHead, SetsQuery } from '../../../src-main/api/delivery-client';
import { ApiError } from '../../../src-main/api/errors';
import type { CollectionDetail, CollectionSummary, ConsentRecord, Me, SetRecord, SetsPage } from '../../../src-shared/delivery-api';

export const BASE_URL = 'http://127.0.0.1:9';
export const COLLECTION_ID = 7;
const SLOTS = ['front', 'side', 'back'];
/** Bodies are handed to the sink in chunks of this size, as a socket would. */
const CHUNK = 16 * 1024;

/** What the next request for a file gets instead of its body. */
export type FileFault = 'corrupt' | 'not_found';

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** Deterministic bytes of a file: different per set, slot and version. */
export function fileBody(setId: number, slot: number, version = 1, size = 3000 + setId * 100 + slot): Buffer {
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i++) out[i] = (setId * 31 + slot * 7 + version * 13 + i) & 0xff;
  return out;
}

export class FakeDelivery implements DeliveryClient {
  readonly baseUrl = BASE_URL;
  readonly multiplexed = false;
  requestCount = 0;
  /** The file URLs asked for, in order (resumes included). */
  readonly fileRequests: string[] = [];
  private readonly sets = new Map<number, SetRecord>();
  private readonly bodies = new Map<string, Buffer>();
  private readonly faults = new Map<string, FileFault[]>();
  private clock = Date.parse('2030-03-01T10:00:00Z');

  /** A later updated_at than any before: a set's edit, or its leaving accepted. */
  private tick(): string {
    this.clock += 60_000;
    return new Date(this.clock).toISOString();
  }

  /** Adds (or replaces) set `id` with one file per body, in slot order; accepted unless told. */
  putSet(id: number, bodies: Buffer[], opts: { status?: string; consent?: boolean } = {}): SetRecord {
    const at = this.tick();
    const record: SetRecord = {
      id,
      status: opts.status ?? 'accepted',
      submitted_at: at,
      accepted_at: at,
      updated_at: at,
      is_gold: false,
      participants: [
        {
          id: id * 10,
          role: 'subject',
          participant_ref: `p-${id}`,
          age: 30,
          quota_group: { group: 'gender', value: 'any', label: 'Any' },
          consent: opts.consent === false ? null : { id: id * 100, version: 'v1', signed_at: at, signer_name: `Signer ${id}`, url: `${BASE_URL}/consents/${id * 100}` },
        },
      ],
      files: bodies.map((body, i) => {
        const url = `${BASE_URL}/files/${id}-${i + 1}-${sha256(body).slice(0, 8)}`;
        this.bodies.set(url, body);
        return {
          id: id * 10 + i + 1,
          slot_index: i + 1,
          slot_key: SLOTS[i]!,
          filename: `set_${id}_slot_${String(i + 1).padStart(2, '0')}.mp4`,
          content_type: 'video/mp4',
          size_bytes: body.length,
          sha256: sha256(body),
          media: { width: 1280, height: 720, fps: 30, duration: 4, codec: 'h264' },
          check_status: 'passed',
          url,
        };
      }),
    };
    this.sets.set(id, record);
    return record;
  }

  /** The set moves to `status` (e.g. rejected: it left accepted), with a new updated_at. */
  setStatus(id: number, status: string): void {
    const record = this.sets.get(id)!;
    this.sets.set(id, { ...record, status, updated_at: this.tick() });
  }

  /** The next `times` requests of the file at `url` get `fault` instead of its body. */
  failFile(url: string, fault: FileFault, times = 1): void {
    this.faults.set(url, [...(this.faults.get(url) ?? []), ...Array<FileFault>(times).fill(fault)]);
  }

  /** The file is served again as it was (a not_found fault with a large `times` cleared). */
  healFile(url: string): void {
    this.faults.delete(url);
  }

  record(id: number): SetRecord {
    return this.sets.get(id)!;
  }

  private count<T>(value: T): Promise<T> {
    this.requestCount++;
    return Promise.resolve(structuredClone(value));
  }

  me(): Promise<Me> {
    return this.count({ client: { id: 1, name: 'Unit', email: 'unit@example.org' }, api_key: { name: 'unit', prefix: 'dsk_unit', scopes: ['delivery:read'] } });
  }

  private summary(): CollectionSummary {
    return { id: COLLECTION_ID, title: 'Unit collection', status: 'active', price_per_set: '10.00', currency: 'EUR', deadline: null, created_at: '2030-01-01T00:00:00Z' };
  }

  listCollections(): Promise<CollectionSummary[]> {
    return this.count([this.summary()]);
  }

  getCollection(id: number): Promise<CollectionDetail> {
    if (id !== COLLECTION_ID) return Promise.reject(new ApiError('not_found', `GET /collections/${id}: not found`, { status: 404 }));
    const byStatus = (s: string) => [...this.sets.values()].filter((r) => r.status === s).length;
    return this.count({
      ...this.summary(),
      spec: {
        modality: 'video',
        participants_per_set: 1,
        slots: SLOTS.map((key, i) => ({ index: i + 1, key, title: key, description: `The ${key} view` })),
        media_rules: { min_width: 640, min_height: 480, min_fps: 24, min_duration: 1, max_duration: 60, formats: ['mp4'] },
        participant_fields: ['age'],
        quota_field: 'gender',
        consent_version: 'v1',
        recruitment_status: 'open',
      },
      quotas: [],
      sets: { accepted: byStatus('accepted'), in_review: byStatus('in_review'), in_progress: byStatus('in_progress') },
    });
  }

  /** The service's order: updated_at, then id; `updated_since` inclusive. */
  listSets(_collectionId: number, q: SetsQuery): Promise<SetsPage> {
    const status = q.status ?? 'accepted';
    const all = [...this.sets.values()]
      .filter((r) => r.status === status && (q.updatedSince === undefined || r.updated_at >= q.updatedSince))
      .sort((a, b) => a.updated_at.localeCompare(b.updated_at) || a.id - b.id);
    const perPage = q.perPage ?? 50;
    const page = q.page ?? 1;
    const sets = all.slice((page - 1) * perPage, page * perPage);
    return this.count({ sets, page, per_page: perPage, total: all.length, has_more: page * perPage < all.length, rejected: [] });
  }

  getSet(_collectionId: number, setId: number): Promise<SetRecord> {
    const record = this.sets.get(setId);
    if (!record) return Promise.reject(new ApiError('not_found', `GET /sets/${setId}: not found`, { status: 404 }));
    return this.count(record);
  }

  getConsent(url: string): Promise<ConsentRecord> {
    const id = Number(url.split('/').at(-1));
    return this.count({ id, version: 'v1', signed_at: '2030-01-01T00:00:00Z', signer_name: `Signer of ${id}`, text: 'I agree.' });
  }

  /** The body (or the range after `start` when If-Range names its hash) to the sink, paused while it says so. */
  async streamFile(url: string, opts: { start?: number; ifRange?: string; signal?: AbortSignal }, onHead: (head: FileResponseHead, flow: BodyFlow) => FileBodySink | null): Promise<void> {
    this.requestCount++;
    this.fileRequests.push(url);
    const fault = this.faults.get(url)?.shift();
    const stored = this.bodies.get(url);
    if (!stored || fault === 'not_found') throw new ApiError('not_found', `GET ${new URL(url).pathname}: not found`, { status: 404 });
    let body = stored;
    if (fault === 'corrupt') {
      body = Buffer.from(stored);
      body[body.length >> 1]! ^= 0xff;
    }
    const start = opts.start ?? 0;
    const ranged = start > 0 && opts.ifRange === `"${sha256(stored)}"` && start < body.length;
    const head: FileResponseHead = ranged
      ? { status: 206, headers: { 'content-length': String(body.length - start), 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } }
      : { status: 200, headers: { 'content-length': String(body.length) } };
    let aborted: Error | undefined;
    let resumed = false;
    let wake: (() => void) | undefined;
    const flow: BodyFlow = {
      resume: () => {
        resumed = true;
        wake?.();
      },
      abort: (reason) => {
        aborted = reason;
        wake?.();
      },
    };
    const sink = onHead(head, flow);
    if (!sink) return;
    for (let at = ranged ? start : 0; at < body.length; at += CHUNK) {
      if (opts.signal?.aborted) throw new ApiError('aborted', `GET ${url}: cancelled`);
      resumed = false;
      const more = sink.onData(body.subarray(at, at + CHUNK));
      if (aborted) throw aborted;
      // Paused until the sink resumes the flow (or aborts it), as a socket would be.
      while (!more && !resumed && !aborted) await new Promise<void>((r) => (wake = r));
      if (aborted) throw aborted;
    }
  }

  async close(): Promise<void> {}
}

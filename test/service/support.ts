// Shared helpers of the reference-service contract tests: one real service per test file,
// in its own temp data dir, and small HTTP helpers on undici.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { request } from 'undici';
import { startReferenceService, type RunningService, type ServiceOptions } from '../../src-service/index';

/** Synthetic body size for tests that need one (byte-offset faults); the default is the real demo videos. */
export const SMALL_FILE = 32 * 1024;

// Shapes of the delivery API as the spec describes them (written here, not imported from the
// service, so the tests check the service against the spec rather than against itself).
export interface ApiFile {
  id: number;
  slot_index: number;
  slot_key: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  media: { width: number; height: number; fps: number; duration: number; codec: string };
  check_status: string;
  url: string;
}
export interface ApiConsentRef {
  id: number;
  version: string;
  signed_at: string;
  signer_name: string;
  url: string;
}
export interface ApiParticipant {
  id: number;
  role: string;
  participant_ref: string;
  age?: number;
  gender?: string;
  ethnicity?: string;
  skin_tone: string | null;
  quota_group: { group: string; value: string; label: string };
  consent: ApiConsentRef | null;
}
export interface ApiSet {
  id: number;
  status: string;
  submitted_at: string;
  accepted_at: string | null;
  updated_at: string;
  is_gold: boolean;
  participants: ApiParticipant[];
  files: ApiFile[];
}
export interface ApiSetsPage {
  sets: ApiSet[];
  page: number;
  per_page: number;
  total: number;
  has_more: boolean;
}
export interface ApiQuota {
  group: string;
  value: string;
  label: string;
  target: number;
  accepted: number;
  reserved: number;
  available: number;
  status: string;
}
export interface ApiCollectionSummary {
  id: number;
  title: string;
  status: string;
  price_per_set: string;
  currency: string;
  deadline: string | null;
  created_at: string;
}
export interface ApiCollectionDetail extends ApiCollectionSummary {
  spec: {
    modality: string;
    participants_per_set: number;
    slots: Array<{ index: number; key: string; title: string; description: string }>;
    media_rules: { min_width: number; min_height: number; min_fps: number; min_duration: number; max_duration: number; formats: string[] };
    participant_fields: string[];
    quota_field: string;
    consent_version: string;
    recruitment_status: string;
  };
  quotas: ApiQuota[];
  sets: Record<string, number>;
}
export interface ApiError {
  error: string;
}

export interface TestService extends RunningService {
  dataDir: string;
  mainKey: string;
  otherKey: string;
  mainCollection: number;
  stop(): Promise<void>;
}

export async function startTestService(opts: ServiceOptions = {}): Promise<TestService> {
  const dataDir = opts.dataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'ds-service-test-')));
  const service = await startReferenceService({ sets: 12, ...opts, dataDir });
  const [main, other] = service.clients;
  if (!main || !other || main.collections[0] === undefined) throw new Error('demo data lacks two clients');
  return {
    ...service,
    dataDir,
    mainKey: main.apiKey,
    otherKey: other.apiKey,
    mainCollection: main.collections[0],
    async stop() {
      await service.close();
      if (!opts.dataDir) await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface JsonAnswer<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
}

/** GET (or another method) of a JSON endpoint; `key` null sends no Authorization. */
export async function getJson<T = unknown>(url: string, key: string | null, headers: Record<string, string> = {}): Promise<JsonAnswer<T>> {
  const res = await request(url, { headers: { accept: 'application/json', ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...headers } });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: (text === '' ? undefined : JSON.parse(text)) as T };
}

export interface BytesAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export async function getBytes(url: string, key: string | null, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET'): Promise<BytesAnswer> {
  const res = await request(url, { method, headers: { ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...headers } });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Every accepted set of a collection, by walking all pages. */
export async function walkSets(base: string, key: string, collectionId: number, query = ''): Promise<ApiSet[]> {
  const sets: ApiSet[] = [];
  for (let page = 1; ; page++) {
    const res = await getJson<ApiSetsPage>(`${base}/collections/${collectionId}/sets?per_page=200&page=${page}${query}`, key);
    if (res.status !== 200) throw new Error(`page ${page}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
    sets.push(...res.body.sets);
    if (!res.body.has_more) return sets;
  }
}

export function expectJsonError(res: JsonAnswer, status: number): void {
  if (res.status !== status) throw new Error(`expected HTTP ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  const type = String(res.headers['content-type']);
  if (!type.startsWith('application/json')) throw new Error(`error answer has content-type ${type}`);
  const body = res.body as Record<string, unknown> | undefined;
  const keys = Object.keys(body ?? {});
  if (keys.length !== 1 || keys[0] !== 'error' || typeof body?.error !== 'string' || body.error === '') {
    throw new Error(`error body is not {"error": "<message>"}: ${JSON.stringify(res.body)}`);
  }
}

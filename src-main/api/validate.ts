// Hand-written runtime checks of delivery API answers against types.ts. Each check throws a
// ContractError naming the offending field (e.g. "sets[3].files[0].sha256"); the client turns
// it into ApiError('malformed'). Unknown extra fields are accepted and kept.
import type {
  CollectionDetail,
  CollectionSummary,
  ConsentRecord,
  ConsentRef,
  FileRecord,
  Me,
  Participant,
  SetRecord,
  SetsPage,
} from './types';

export class ContractError extends Error {
  constructor(readonly field: string, readonly problem: string) {
    super(`${field} ${problem}`);
    this.name = 'ContractError';
  }
}

type Obj = Record<string, unknown>;

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'string' ? `a string` : `${typeof v}`;
}

export function obj(v: unknown, field: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ContractError(field, `must be an object, got ${describe(v)}`);
  return v as Obj;
}

function arr(v: unknown, field: string): unknown[] {
  if (!Array.isArray(v)) throw new ContractError(field, `must be an array, got ${describe(v)}`);
  return v;
}

function str(v: unknown, field: string): string {
  if (typeof v !== 'string') throw new ContractError(field, `must be a string, got ${describe(v)}`);
  return v;
}

function optStr(v: unknown, field: string): string | undefined {
  return v === undefined ? undefined : str(v, field);
}

function num(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ContractError(field, `must be a number, got ${describe(v)}`);
  return v;
}

function int(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new ContractError(field, `must be an integer, got ${describe(v)}`);
  return v;
}

function nonNegInt(v: unknown, field: string): number {
  const n = int(v, field);
  if (n < 0) throw new ContractError(field, `must not be negative (got ${n})`);
  return n;
}

function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') throw new ContractError(field, `must be a boolean, got ${describe(v)}`);
  return v;
}

function timestamp(v: unknown, field: string): string {
  const s = str(v, field);
  if (Number.isNaN(Date.parse(s))) throw new ContractError(field, `must be an ISO 8601 timestamp, got "${s.slice(0, 40)}"`);
  return s;
}

function strArray(v: unknown, field: string): string[] {
  return arr(v, field).map((x, i) => str(x, `${field}[${i}]`));
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

export function validateMe(v: unknown): Me {
  const o = obj(v, 'body');
  const c = obj(o.client, 'client');
  const k = obj(o.api_key, 'api_key');
  int(c.id, 'client.id');
  str(c.name, 'client.name');
  str(c.email, 'client.email');
  str(k.name, 'api_key.name');
  str(k.prefix, 'api_key.prefix');
  strArray(k.scopes, 'api_key.scopes');
  return o as unknown as Me;
}

function validateCollectionSummaryAt(v: unknown, f: string): CollectionSummary {
  const o = obj(v, f);
  int(o.id, `${f}.id`);
  str(o.title, `${f}.title`);
  str(o.status, `${f}.status`);
  str(o.price_per_set, `${f}.price_per_set`);
  str(o.currency, `${f}.currency`);
  // "type when set: not shown": we accept null, an ISO string, or epoch seconds (normalised to ISO).
  if (o.deadline === undefined) o.deadline = null;
  else if (typeof o.deadline === 'number' && Number.isFinite(o.deadline)) o.deadline = new Date(o.deadline * 1000).toISOString();
  else if (o.deadline !== null) timestamp(o.deadline, `${f}.deadline`);
  timestamp(o.created_at, `${f}.created_at`);
  return o as unknown as CollectionSummary;
}

export function validateCollections(v: unknown): CollectionSummary[] {
  const o = obj(v, 'body');
  return arr(o.collections, 'collections').map((c, i) => validateCollectionSummaryAt(c, `collections[${i}]`));
}

export function validateCollectionDetail(v: unknown): CollectionDetail {
  const o = obj(v, 'body');
  const f = 'collection';
  const c = validateCollectionSummaryAt(o.collection, f) as unknown as Obj;
  const spec = obj(c.spec, `${f}.spec`);
  str(spec.modality, `${f}.spec.modality`);
  int(spec.participants_per_set, `${f}.spec.participants_per_set`);
  arr(spec.slots, `${f}.spec.slots`).forEach((s, i) => {
    const so = obj(s, `${f}.spec.slots[${i}]`);
    int(so.index, `${f}.spec.slots[${i}].index`);
    str(so.key, `${f}.spec.slots[${i}].key`);
    str(so.title, `${f}.spec.slots[${i}].title`);
    str(so.description, `${f}.spec.slots[${i}].description`);
  });
  const mr = obj(spec.media_rules, `${f}.spec.media_rules`);
  for (const k of ['min_width', 'min_height'] as const) int(mr[k], `${f}.spec.media_rules.${k}`);
  for (const k of ['min_fps', 'min_duration', 'max_duration'] as const) num(mr[k], `${f}.spec.media_rules.${k}`);
  strArray(mr.formats, `${f}.spec.media_rules.formats`);
  strArray(spec.participant_fields, `${f}.spec.participant_fields`);
  str(spec.quota_field, `${f}.spec.quota_field`);
  str(spec.consent_version, `${f}.spec.consent_version`);
  str(spec.recruitment_status, `${f}.spec.recruitment_status`);
  arr(c.quotas, `${f}.quotas`).forEach((q, i) => {
    const qo = obj(q, `${f}.quotas[${i}]`);
    for (const k of ['group', 'value', 'label', 'status'] as const) str(qo[k], `${f}.quotas[${i}].${k}`);
    // available may be negative when a group is over-filled; the others are counts.
    for (const k of ['target', 'accepted', 'reserved'] as const) nonNegInt(qo[k], `${f}.quotas[${i}].${k}`);
    int(qo.available, `${f}.quotas[${i}].available`);
  });
  const sets = obj(c.sets, `${f}.sets`);
  for (const [k, n] of Object.entries(sets)) nonNegInt(n, `${f}.sets.${k}`);
  for (const k of ['accepted', 'in_review', 'in_progress'] as const) nonNegInt(sets[k], `${f}.sets.${k}`);
  return c as unknown as CollectionDetail;
}

function validateConsentRef(v: unknown, f: string): ConsentRef | null {
  if (v === null || v === undefined) return null;
  const o = obj(v, f);
  int(o.id, `${f}.id`);
  str(o.version, `${f}.version`);
  timestamp(o.signed_at, `${f}.signed_at`);
  str(o.signer_name, `${f}.signer_name`);
  str(o.url, `${f}.url`);
  return o as unknown as ConsentRef;
}

function validateParticipant(v: unknown, f: string): Participant {
  const o = obj(v, f);
  int(o.id, `${f}.id`);
  str(o.role, `${f}.role`);
  str(o.participant_ref, `${f}.participant_ref`);
  if (o.age !== undefined) nonNegInt(o.age, `${f}.age`);
  optStr(o.gender, `${f}.gender`);
  optStr(o.ethnicity, `${f}.ethnicity`);
  if (o.skin_tone !== undefined && o.skin_tone !== null) str(o.skin_tone, `${f}.skin_tone`);
  const qg = obj(o.quota_group, `${f}.quota_group`);
  for (const k of ['group', 'value', 'label'] as const) str(qg[k], `${f}.quota_group.${k}`);
  if (!('consent' in o)) throw new ContractError(`${f}.consent`, 'is missing (must be an object or null)');
  validateConsentRef(o.consent, `${f}.consent`);
  return o as unknown as Participant;
}

function validateFile(v: unknown, f: string): FileRecord {
  const o = obj(v, f);
  int(o.id, `${f}.id`);
  int(o.slot_index, `${f}.slot_index`);
  str(o.slot_key, `${f}.slot_key`);
  str(o.filename, `${f}.filename`);
  str(o.content_type, `${f}.content_type`);
  nonNegInt(o.size_bytes, `${f}.size_bytes`);
  const sha = str(o.sha256, `${f}.sha256`);
  if (!SHA256_HEX.test(sha)) throw new ContractError(`${f}.sha256`, 'must be 64 lowercase hex characters');
  const m = obj(o.media, `${f}.media`);
  int(m.width, `${f}.media.width`);
  int(m.height, `${f}.media.height`);
  num(m.fps, `${f}.media.fps`);
  num(m.duration, `${f}.media.duration`);
  str(m.codec, `${f}.media.codec`);
  str(o.check_status, `${f}.check_status`);
  str(o.url, `${f}.url`);
  return o as unknown as FileRecord;
}

export function validateSetAt(v: unknown, f: string): SetRecord {
  const o = obj(v, f);
  int(o.id, `${f}.id`);
  str(o.status, `${f}.status`);
  timestamp(o.submitted_at, `${f}.submitted_at`);
  // accepted_at is documented as a timestamp; sets that are not accepted may reasonably carry null.
  if (o.accepted_at === undefined) o.accepted_at = null;
  if (o.accepted_at !== null) timestamp(o.accepted_at, `${f}.accepted_at`);
  timestamp(o.updated_at, `${f}.updated_at`);
  bool(o.is_gold, `${f}.is_gold`);
  arr(o.participants, `${f}.participants`).forEach((p, i) => validateParticipant(p, `${f}.participants[${i}]`));
  arr(o.files, `${f}.files`).forEach((x, i) => validateFile(x, `${f}.files[${i}]`));
  return o as unknown as SetRecord;
}

export function validateSet(v: unknown): SetRecord {
  return validateSetAt(obj(v, 'body').set, 'set');
}

export function validateSetsPage(v: unknown): SetsPage {
  const o = obj(v, 'body');
  arr(o.sets, 'sets').forEach((s, i) => validateSetAt(s, `sets[${i}]`));
  int(o.page, 'page');
  int(o.per_page, 'per_page');
  nonNegInt(o.total, 'total');
  bool(o.has_more, 'has_more');
  return o as unknown as SetsPage;
}

export function validateConsent(v: unknown): ConsentRecord {
  const o = obj(obj(v, 'body').consent, 'consent');
  int(o.id, 'consent.id');
  str(o.version, 'consent.version');
  timestamp(o.signed_at, 'consent.signed_at');
  str(o.signer_name, 'consent.signer_name');
  return o as ConsentRecord;
}

// The recruiter API's resources (as docs/contracts.md §6 records it) as zod schemas, with the
// types inferred from them, and the request types. Types and schemas only: no Node, no Electron.
//
// The spec shows almost no response fields, so the schemas require only what the client cannot
// work without (ids, names, states) and accept the reasonable alternatives for the rest,
// normalised on the way through:
// - ids as numbers or digit strings (numbers out);
// - money (rate, daily_rate) as strings or numbers (strings out);
// - scores as numbers or numeric strings; reasons as an array of strings or one string;
// - skill lists as arrays or comma-separated strings; scopes as arrays or space-separated strings;
// - GET /me with `key` or `api_key`, `organization` or `org`;
// - single resources wrapped (`{"job": {...}}`) or bare; lists wrapped (`{"jobs": [...]}`, page
//   fields optional) or a bare array;
// - a job's applications inside the job or beside it (`{"job": {...}, "applications": [...]}`).
// Unknown fields are dropped.
import { z } from 'zod';

export type RecruiterScope = 'jobs:read' | 'jobs:write' | 'data_champs:read' | (string & {});
export type JobStatus = 'draft' | 'active' | 'paused' | 'closed' | (string & {});
export type ApplicationStatus =
  | 'pending' | 'shortlisted' | 'hired' | 'rejected' | 'work_submitted' | 'work_approved' | (string & {});
export type Availability = 'available' | 'busy' | 'unavailable';
export const JOB_TYPES = [
  'survey', 'audit', 'labeling', 'annotation', 'custom', 'transcription',
  'verification', 'voice_recording', 'photo_survey', 'data_entry', 'analytics',
] as const;
export type JobType = (typeof JOB_TYPES)[number];

// --- lenient scalars ---

const INVALID = Symbol('invalid');

/** A value read by `read`, which returns INVALID for anything it does not accept. */
function lenient<T>(message: string, read: (v: unknown) => T | typeof INVALID) {
  return z.unknown().transform((v, ctx): T => {
    const out = read(v);
    if (out !== INVALID) return out;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });
}

const absent = (v: unknown): v is null | undefined => v === undefined || v === null;

function readId(v: unknown): number | typeof INVALID {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  return INVALID;
}

function readNumber(v: unknown): number | typeof INVALID {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return INVALID;
}

function readMoney(v: unknown): string | typeof INVALID {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim())) return v.trim();
  return INVALID;
}

function readBool(v: unknown): boolean | typeof INVALID {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 1) return true;
  if (v === 'false' || v === 0) return false;
  return INVALID;
}

const id = lenient('is not an id', readId);
const optId = lenient('is not an id', (v) => (absent(v) ? null : readId(v)));
const num = lenient('is not a number', readNumber);
const int = lenient('is not an integer', (v) => {
  const n = readNumber(v);
  return n !== INVALID && Number.isInteger(n) ? n : INVALID;
});
const money = lenient('is not an amount', readMoney);
const optMoney = lenient('is not an amount', (v) => (absent(v) ? null : readMoney(v)));
const optStr = z.string().nullish().transform((s) => s ?? null);

/** An array of strings, or one string of items split on `separator`; absent is empty. */
function stringList(separator: RegExp | null) {
  return z
    .union([z.array(z.string()), z.string(), z.null(), z.undefined()], { error: 'is not a list of strings' })
    .transform((v) => {
      if (absent(v)) return [];
      if (typeof v !== 'string') return v;
      return separator ? v.split(separator).map((s) => s.trim()).filter((s) => s !== '') : [v];
    });
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{key: X}` or a bare X. */
const unwrap = (key: string) => (body: unknown) => (isObj(body) && isObj(body[key]) ? body[key] : body);

/** `{key: [...], page fields}` or a bare array (then without page fields). */
const listOf = (key: string) => (body: unknown) => (Array.isArray(body) ? { [key]: body } : body);

// --- resources ---

export const RecruiterMeSchema = z.preprocess(
  (b) => (isObj(b) ? { organization: b.organization ?? b.org, key: b.key ?? b.api_key } : b),
  z.object({
    organization: z.object({ id, name: z.string() }),
    key: z.object({
      name: optStr,
      prefix: optStr,
      scopes: stringList(/[\s,]+/),
    }),
  }),
);
export type RecruiterMe = z.infer<typeof RecruiterMeSchema>;

export const JobRecordSchema = z.object({
  id,
  title: z.string(),
  description: optStr.transform((d) => d ?? ''),
  job_type: z.string(),
  location_type: optStr,
  rate: money,
  rate_type: optStr,
  currency: z.string(),
  number_of_positions: int,
  required_skills: stringList(/,/),
  status: z.string(),
  /** Not in the written contract; the reference service sends it. Absent: the list shows "—". */
  applications_count: int.optional(),
  created_at: optStr,
  updated_at: optStr,
});
export type Job = z.infer<typeof JobRecordSchema>;

export const JobAnswerSchema = z.preprocess(unwrap('job'), JobRecordSchema);

export const DataChampRecordSchema = z.object({
  id,
  name: z.string(),
  skills: stringList(/,/),
  city: optStr,
  region: optStr,
  country: optStr,
  availability: optStr,
  daily_rate: optMoney,
  currency: optStr,
  verified: lenient('is not a boolean', (v) => (absent(v) ? false : readBool(v))),
  rating: lenient('is not a number', (v) => (absent(v) ? null : readNumber(v))),
  bio: optStr,
  /** Not in the written contract (the reference service sends them): shown on the profile when present. */
  languages: stringList(/,/),
  completed_jobs: lenient('is not an integer', (v) => {
    if (absent(v)) return null;
    const n = readNumber(v);
    return n !== INVALID && Number.isInteger(n) ? n : INVALID;
  }),
});
export type DataChamp = z.infer<typeof DataChampRecordSchema>;

export const DataChampAnswerSchema = z.preprocess(unwrap('data_champ'), DataChampRecordSchema);

/** An application as served; job_id may be left out (it is implied by the URL) and is null then. */
export const ApplicationRecordSchema = z.preprocess(
  (a) => (isObj(a) ? { ...a, rejection_reason: a.rejection_reason ?? a.reason, applied_at: a.applied_at ?? a.created_at } : a),
  z
    .object({
      id,
      job_id: optId,
      status: z.string(),
      data_champ_id: optId,
      data_champ: DataChampRecordSchema.nullish().transform((c) => c ?? null),
      rejection_reason: optStr,
      /** Not in the written contract; the reference service sends both. */
      cover_letter: optStr,
      proposed_rate: optMoney,
      applied_at: optStr,
      updated_at: optStr,
    })
    .transform((a) => ({ ...a, data_champ_id: a.data_champ_id ?? a.data_champ?.id ?? null })),
);
/** An application as the client returns it: job_id filled from the URL when the record left it out. */
export type Application = Omit<z.infer<typeof ApplicationRecordSchema>, 'job_id'> & { job_id: number };

export const ApplicationAnswerSchema = z.preprocess(unwrap('application'), ApplicationRecordSchema);

export const ApplicationsAnswerSchema = z.preprocess(listOf('applications'), z.object({ applications: z.array(ApplicationRecordSchema) }));

export const JobDetailAnswerSchema = z.preprocess(
  (b) => {
    const job = unwrap('job')(b);
    if (!isObj(job)) return job;
    return { ...job, applications: job.applications ?? (isObj(b) ? b.applications : undefined) ?? [] };
  },
  JobRecordSchema.extend({ applications: z.array(ApplicationRecordSchema) }).transform((j) => ({
    ...j,
    applications: j.applications.map((a): Application => ({ ...a, job_id: a.job_id ?? j.id })),
  })),
);
export type JobDetail = z.infer<typeof JobDetailAnswerSchema>;

/** Page fields; each may be left out (the client derives it from what it asked and got). */
const PageFieldsSchema = z.object({ page: int.optional(), per_page: int.optional(), total: int.optional(), has_more: lenient('is not a boolean', readBool).optional() });

export interface Page {
  page: number;
  per_page: number;
  total: number;
  has_more: boolean;
}

export const JobsAnswerSchema = z.preprocess(listOf('jobs'), PageFieldsSchema.extend({ jobs: z.array(JobRecordSchema) }));
export type JobsPage = Page & { jobs: Job[] };

export const DataChampsAnswerSchema = z.preprocess(listOf('data_champs'), PageFieldsSchema.extend({ data_champs: z.array(DataChampRecordSchema) }));
export type DataChampsPage = Page & { data_champs: DataChamp[] };

export const MatchSchema = z.preprocess(
  (m) => (isObj(m) ? { ...m, reasons: m.reasons ?? m.reason } : m),
  z.object({
    data_champ: DataChampRecordSchema,
    score: num,
    reasons: stringList(null),
  }),
);
export type Match = z.infer<typeof MatchSchema>;

export const MatchesAnswerSchema = z.preprocess(listOf('matches'), z.object({ matches: z.array(MatchSchema) }));

// --- requests ---

/** Body of POST /jobs. */
export interface JobInput {
  title: string;
  description: string;
  job_type: JobType | (string & {});
  location_type: 'on_site' | 'remote' | 'hybrid' | (string & {});
  rate: string;
  rate_type: 'daily' | 'hourly' | 'fixed' | (string & {});
  currency: string;
  number_of_positions: number;
  required_skills?: string[];
}

/** Body of PUT /jobs/:id: the fields to change. */
export type JobUpdate = Partial<JobInput>;

export interface DataChampSearchFilters {
  /** All listed skills must be held; an array is sent comma-separated. */
  skills?: string[] | string;
  /** City or region. */
  location?: string;
  country?: string;
  availability?: Availability;
  min_rate?: number;
  max_rate?: number;
  verified_only?: boolean;
  /** Name substring. */
  search?: string;
  page?: number;
  per_page?: number;
}

export interface JobListOptions {
  page?: number;
  per_page?: number;
  status?: JobStatus;
}

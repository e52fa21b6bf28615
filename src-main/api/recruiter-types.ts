// Resource types of the recruiter API (../shared/spec/recruiter-api.md) and the hand-written
// validators that turn a parsed JSON answer into them. The spec shows almost no response
// fields, so validators require only what the client cannot work without (ids, names, states)
// and accept the reasonable alternatives for the rest:
// - ids as numbers or digit strings (normalised to numbers);
// - money (rate, daily_rate, proposed_rate) as strings or numbers (normalised to strings);
// - scores as numbers or numeric strings; reasons as an array of strings or one string;
// - skill lists as arrays or comma-separated strings; scopes as arrays or space-separated strings;
// - GET /me with `key` or `api_key`, `organization` or `org`;
// - single resources wrapped (`{"job": {...}}`) or bare; lists wrapped (`{"jobs": [...]}` with or
//   without page fields, page fields then derived) or a bare array;
// - a job's applications inside the job or beside it (`{"job": {...}, "applications": [...]}`).
// Extra fields are ignored. Anything else is a MalformedAnswer, which the client reports as an
// ApiError of kind 'malformed'.

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

export interface RecruiterMe {
  organization: { id: number; name: string };
  key: { name: string | null; prefix: string | null; scopes: RecruiterScope[] };
}

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

export interface Job {
  id: number;
  title: string;
  description: string;
  job_type: string;
  location_type: string | null;
  rate: string;
  rate_type: string | null;
  currency: string;
  number_of_positions: number;
  required_skills: string[];
  status: JobStatus;
  created_at: string | null;
  updated_at: string | null;
}

export interface JobDetail extends Job {
  applications: Application[];
}

export interface Page {
  page: number;
  per_page: number;
  total: number;
  has_more: boolean;
}

export interface JobsPage extends Page {
  jobs: Job[];
}

export interface DataChamp {
  id: number;
  name: string;
  skills: string[];
  city: string | null;
  region: string | null;
  country: string | null;
  availability: string | null;
  daily_rate: string | null;
  currency: string | null;
  verified: boolean;
  rating: number | null;
  bio: string | null;
}

export interface DataChampsPage extends Page {
  data_champs: DataChamp[];
}

export interface Application {
  id: number;
  job_id: number;
  status: ApplicationStatus;
  data_champ_id: number | null;
  data_champ: DataChamp | null;
  rejection_reason: string | null;
  applied_at: string | null;
  updated_at: string | null;
}

export interface Match {
  data_champ: DataChamp;
  score: number;
  reasons: string[];
}

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

/** The answer does not match the contract; `where` names the offending field. */
export class MalformedAnswer extends Error {
  constructor(readonly where: string, problem: string) {
    super(`${where} ${problem}`);
    this.name = 'MalformedAnswer';
  }
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function obj(v: unknown, where: string): Obj {
  if (!isObj(v)) throw new MalformedAnswer(where, 'is not an object');
  return v;
}

function id(v: unknown, where: string): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  throw new MalformedAnswer(where, 'is not an id');
}

function optId(v: unknown, where: string): number | null {
  return v === undefined || v === null ? null : id(v, where);
}

function str(v: unknown, where: string): string {
  if (typeof v !== 'string') throw new MalformedAnswer(where, 'is not a string');
  return v;
}

function optStr(v: unknown, where: string): string | null {
  return v === undefined || v === null ? null : str(v, where);
}

function money(v: unknown, where: string): string {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim())) return v.trim();
  throw new MalformedAnswer(where, 'is not an amount');
}

function optMoney(v: unknown, where: string): string | null {
  return v === undefined || v === null ? null : money(v, where);
}

function num(v: unknown, where: string): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  throw new MalformedAnswer(where, 'is not a number');
}

function int(v: unknown, where: string): number {
  const n = num(v, where);
  if (!Number.isInteger(n)) throw new MalformedAnswer(where, 'is not an integer');
  return n;
}

function bool(v: unknown, where: string): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 1) return true;
  if (v === 'false' || v === 0) return false;
  throw new MalformedAnswer(where, 'is not a boolean');
}

/** An array of strings, or one string of items split on `separator`. */
function stringList(v: unknown, where: string, separator: RegExp): string[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return v.split(separator).map((s) => s.trim()).filter((s) => s !== '');
  if (!Array.isArray(v)) throw new MalformedAnswer(where, 'is not a list of strings');
  return v.map((s, i) => str(s, `${where}[${i}]`));
}

function list(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) throw new MalformedAnswer(where, 'is not a list');
  return v;
}

/** `{key: X}` or a bare X (recognised by having an id). */
function unwrap(body: unknown, key: string): unknown {
  if (isObj(body) && isObj(body[key])) return body[key];
  return body;
}

export function parseMe(body: unknown): RecruiterMe {
  const root = obj(body, 'answer');
  const org = obj(root.organization ?? root.org, 'organization');
  const key = obj(root.key ?? root.api_key, 'key');
  return {
    organization: { id: id(org.id, 'organization.id'), name: str(org.name, 'organization.name') },
    key: {
      name: optStr(key.name, 'key.name'),
      prefix: optStr(key.prefix, 'key.prefix'),
      scopes: stringList(key.scopes, 'key.scopes', /[\s,]+/),
    },
  };
}

export function parseJobRecord(v: unknown, where = 'job'): Job {
  const j = obj(v, where);
  return {
    id: id(j.id, `${where}.id`),
    title: str(j.title, `${where}.title`),
    description: optStr(j.description, `${where}.description`) ?? '',
    job_type: str(j.job_type, `${where}.job_type`),
    location_type: optStr(j.location_type, `${where}.location_type`),
    rate: money(j.rate, `${where}.rate`),
    rate_type: optStr(j.rate_type, `${where}.rate_type`),
    currency: str(j.currency, `${where}.currency`),
    number_of_positions: int(j.number_of_positions, `${where}.number_of_positions`),
    required_skills: stringList(j.required_skills, `${where}.required_skills`, /,/),
    status: str(j.status, `${where}.status`),
    created_at: optStr(j.created_at, `${where}.created_at`),
    updated_at: optStr(j.updated_at, `${where}.updated_at`),
  };
}

export function parseJob(body: unknown): Job {
  return parseJobRecord(unwrap(body, 'job'));
}

export function parseJobDetail(body: unknown): JobDetail {
  const raw = obj(unwrap(body, 'job'), 'job');
  const job = parseJobRecord(raw);
  const apps = raw.applications ?? (isObj(body) ? body.applications : undefined) ?? [];
  return {
    ...job,
    applications: list(apps, 'job.applications').map((a, i) => parseApplicationRecord(a, job.id, `job.applications[${i}]`)),
  };
}

export function parseDataChampRecord(v: unknown, where = 'data_champ'): DataChamp {
  const c = obj(v, where);
  return {
    id: id(c.id, `${where}.id`),
    name: str(c.name, `${where}.name`),
    skills: stringList(c.skills, `${where}.skills`, /,/),
    city: optStr(c.city, `${where}.city`),
    region: optStr(c.region, `${where}.region`),
    country: optStr(c.country, `${where}.country`),
    availability: optStr(c.availability, `${where}.availability`),
    daily_rate: optMoney(c.daily_rate, `${where}.daily_rate`),
    currency: optStr(c.currency, `${where}.currency`),
    verified: c.verified === undefined || c.verified === null ? false : bool(c.verified, `${where}.verified`),
    rating: c.rating === undefined || c.rating === null ? null : num(c.rating, `${where}.rating`),
    bio: optStr(c.bio, `${where}.bio`),
  };
}

export function parseDataChamp(body: unknown): DataChamp {
  return parseDataChampRecord(unwrap(body, 'data_champ'));
}

/** `jobId` fills job_id when the record leaves it out (it is implied by the URL). */
export function parseApplicationRecord(v: unknown, jobId: number, where = 'application'): Application {
  const a = obj(v, where);
  const champ = a.data_champ === undefined || a.data_champ === null ? null : parseDataChampRecord(a.data_champ, `${where}.data_champ`);
  return {
    id: id(a.id, `${where}.id`),
    job_id: optId(a.job_id, `${where}.job_id`) ?? jobId,
    status: str(a.status, `${where}.status`),
    data_champ_id: optId(a.data_champ_id, `${where}.data_champ_id`) ?? champ?.id ?? null,
    data_champ: champ,
    rejection_reason: optStr(a.rejection_reason ?? a.reason, `${where}.rejection_reason`),
    applied_at: optStr(a.applied_at ?? a.created_at, `${where}.applied_at`),
    updated_at: optStr(a.updated_at, `${where}.updated_at`),
  };
}

export function parseApplication(body: unknown, jobId: number): Application {
  return parseApplicationRecord(unwrap(body, 'application'), jobId);
}

export function parseApplications(body: unknown, jobId: number): Application[] {
  const items = Array.isArray(body) ? body : obj(body, 'answer').applications;
  return list(items, 'applications').map((a, i) => parseApplicationRecord(a, jobId, `applications[${i}]`));
}

/** Page fields, derived from the items when the answer leaves them out. */
function parsePage(root: Obj | null, count: number, asked: { page?: number; per_page?: number }): Page {
  const page = root?.page === undefined ? asked.page ?? 1 : int(root.page, 'page');
  const perPage = root?.per_page === undefined ? asked.per_page ?? Math.max(count, 1) : int(root.per_page, 'per_page');
  const total = root?.total === undefined ? (page - 1) * perPage + count : int(root.total, 'total');
  const hasMore = root?.has_more === undefined ? page * perPage < total : bool(root.has_more, 'has_more');
  return { page, per_page: perPage, total, has_more: hasMore };
}

export function parseJobsPage(body: unknown, asked: JobListOptions = {}): JobsPage {
  const root = Array.isArray(body) ? null : obj(body, 'answer');
  const jobs = list(root ? root.jobs : body, 'jobs').map((j, i) => parseJobRecord(j, `jobs[${i}]`));
  return { jobs, ...parsePage(root, jobs.length, asked) };
}

export function parseDataChampsPage(body: unknown, asked: DataChampSearchFilters = {}): DataChampsPage {
  const root = Array.isArray(body) ? null : obj(body, 'answer');
  const champs = list(root ? root.data_champs : body, 'data_champs').map((c, i) => parseDataChampRecord(c, `data_champs[${i}]`));
  return { data_champs: champs, ...parsePage(root, champs.length, asked) };
}

export function parseMatches(body: unknown): Match[] {
  const items = Array.isArray(body) ? body : obj(body, 'answer').matches;
  return list(items, 'matches').map((m, i) => {
    const where = `matches[${i}]`;
    const rec = obj(m, where);
    const reasons = rec.reasons ?? rec.reason;
    return {
      data_champ: parseDataChampRecord(rec.data_champ, `${where}.data_champ`),
      score: num(rec.score, `${where}.score`),
      reasons: typeof reasons === 'string' ? [reasons] : stringList(reasons, `${where}.reasons`, /\n/),
    };
  });
}

// Runtime validators for the recruiter channels' arguments. The renderer is untrusted input:
// wrong types, extra keys and out-of-range numbers are refused with invalid_argument naming
// the field. Business rules of a job (blank title, rate > 0, positions <= 1000...) are NOT
// checked here: the service is their authority and answers 422 per field, which the UI shows
// next to the same inputs as its own inline checks.
import type { JobInput, JobUpdate } from '../../src-shared/recruiter-api';
import { describe, integerIn, invalid, noArgument, record, string, type Validator } from './arg-checks';
import { apiKey, baseUrl } from './validate';
import type { ChampAvailability, ChampSearchArg, RecruiterInvokeChannel, RecruiterInvokeChannels } from './recruiter-contract';

function optionalString(value: unknown, field: string, maxLength: number): string | undefined {
  return value === undefined ? undefined : string(value, field, maxLength);
}

function id(value: unknown, field: string): number {
  return integerIn(value, field, 1, Number.MAX_SAFE_INTEGER);
}

function optionalInteger(value: unknown, field: string, min: number, max: number): number | undefined {
  return value === undefined ? undefined : integerIn(value, field, min, max);
}

function rate(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 10_000_000) {
    throw invalid(`"${field}" must be a number from 0 to 10000000, got ${typeof value === 'number' ? String(value) : describe(value)}.`);
  }
  return value;
}

const STATUS_PATTERN = /^[a-z_]{1,32}$/;

function status(value: unknown, field: string): string {
  const text = string(value, field, 32);
  if (!STATUS_PATTERN.test(text)) throw invalid(`"${field}" must be a status name such as "active", got "${text}".`);
  return text;
}

const SKILL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,49}$/;

function skillList(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) throw invalid(`"${field}" must be an array of skill identifiers, got ${describe(value)}.`);
  if (value.length > 50) throw invalid(`"${field}" lists ${value.length} skills (at most 50).`);
  return value.map((s, i) => {
    if (typeof s !== 'string' || !SKILL_PATTERN.test(s)) {
      throw invalid(`"${field}[${i}]" must be a skill identifier (letters, digits, _ and -), got ${typeof s === 'string' ? `"${s.slice(0, 60)}"` : describe(s)}.`);
    }
    return s;
  });
}

const JOB_STRING_FIELDS = { title: 1000, description: 20_000, job_type: 64, location_type: 64, rate: 32, rate_type: 64, currency: 16 } as const;
const JOB_FIELDS = [...Object.keys(JOB_STRING_FIELDS), 'number_of_positions', 'required_skills'];

/**
 * Job fields by type only. Strings may be empty and numbers out of the business range: those
 * reach the service, whose 422 names the field (and the UI shows it there).
 */
function jobFields(o: Record<string, unknown>, where: string): JobUpdate {
  const out: Record<string, unknown> = {};
  for (const [field, max] of Object.entries(JOB_STRING_FIELDS)) {
    if (o[field] !== undefined) out[field] = string(o[field], `${where}.${field}`, max);
  }
  if (o.number_of_positions !== undefined) {
    out.number_of_positions = integerIn(o.number_of_positions, `${where}.number_of_positions`, -1_000_000_000, 1_000_000_000);
  }
  if (o.required_skills !== undefined) out.required_skills = skillList(o.required_skills, `${where}.required_skills`);
  return out as JobUpdate;
}

function jobInput(value: unknown): JobInput {
  const required = JOB_FIELDS.filter((f) => f !== 'required_skills');
  const o = record(value, required, ['required_skills']);
  return jobFields(o, 'job') as JobInput;
}

function jobUpdate(value: unknown): JobUpdate {
  const o = record(value, [], JOB_FIELDS);
  const changes = jobFields(o, 'changes');
  if (Object.keys(changes).length === 0) throw invalid('"changes" names no field to change.');
  return changes;
}

function jobRef(arg: unknown): { jobId: number } {
  const o = record(arg, ['jobId']);
  return { jobId: id(o.jobId, 'jobId') };
}

function applicationRef(arg: unknown): { jobId: number; applicationId: number } {
  const o = record(arg, ['jobId', 'applicationId']);
  return { jobId: id(o.jobId, 'jobId'), applicationId: id(o.applicationId, 'applicationId') };
}

const AVAILABILITIES: readonly ChampAvailability[] = ['available', 'busy', 'unavailable'];

function champSearch(arg: unknown): ChampSearchArg {
  // An absent argument is "no filters" (the first page of everyone).
  if (arg === undefined || arg === null) return {};
  const o = record(arg, [], ['skills', 'location', 'country', 'availability', 'minRate', 'maxRate', 'verifiedOnly', 'search', 'page', 'perPage']);
  const out: ChampSearchArg = {};
  if (o.skills !== undefined) out.skills = skillList(o.skills, 'skills');
  const location = optionalString(o.location, 'location', 100);
  if (location !== undefined) out.location = location;
  const country = optionalString(o.country, 'country', 100);
  if (country !== undefined) out.country = country;
  const search = optionalString(o.search, 'search', 100);
  if (search !== undefined) out.search = search;
  if (o.availability !== undefined) {
    if (!AVAILABILITIES.includes(o.availability as ChampAvailability)) {
      throw invalid(`"availability" must be one of ${AVAILABILITIES.join(', ')}, got ${typeof o.availability === 'string' ? `"${o.availability.slice(0, 40)}"` : describe(o.availability)}.`);
    }
    out.availability = o.availability as ChampAvailability;
  }
  if (o.minRate !== undefined) out.minRate = rate(o.minRate, 'minRate');
  if (o.maxRate !== undefined) out.maxRate = rate(o.maxRate, 'maxRate');
  if (o.verifiedOnly !== undefined) {
    if (typeof o.verifiedOnly !== 'boolean') throw invalid(`"verifiedOnly" must be true or false, got ${describe(o.verifiedOnly)}.`);
    out.verifiedOnly = o.verifiedOnly;
  }
  const page = optionalInteger(o.page, 'page', 1, 1_000_000);
  if (page !== undefined) out.page = page;
  const perPage = optionalInteger(o.perPage, 'perPage', 1, 100);
  if (perPage !== undefined) out.perPage = perPage;
  return out;
}

type Args = { [C in RecruiterInvokeChannel]: RecruiterInvokeChannels[C]['arg'] };

export const recruiterValidators: { [C in RecruiterInvokeChannel]: Validator<Args[C]> } = {
  'recruiter:connection:get': noArgument,
  'recruiter:connect': (arg) => {
    const o = record(arg, ['baseUrl', 'apiKey']);
    // The key is checked first so a bad URL message never sits next to an unchecked key.
    const key = apiKey(o.apiKey);
    return { baseUrl: baseUrl(o.baseUrl), apiKey: key };
  },
  'recruiter:forget': noArgument,
  'recruiter:jobs:list': (arg) => {
    if (arg === undefined || arg === null) return {};
    const o = record(arg, [], ['page', 'perPage', 'status']);
    const out: Args['recruiter:jobs:list'] = {};
    const page = optionalInteger(o.page, 'page', 1, 1_000_000);
    if (page !== undefined) out.page = page;
    const perPage = optionalInteger(o.perPage, 'perPage', 1, 100);
    if (perPage !== undefined) out.perPage = perPage;
    if (o.status !== undefined) out.status = status(o.status, 'status');
    return out;
  },
  'recruiter:jobs:get': jobRef,
  'recruiter:jobs:create': (arg) => {
    const o = record(arg, ['job']);
    return { job: jobInput(o.job) };
  },
  'recruiter:jobs:update': (arg) => {
    const o = record(arg, ['jobId', 'changes']);
    return { jobId: id(o.jobId, 'jobId'), changes: jobUpdate(o.changes) };
  },
  'recruiter:jobs:publish': jobRef,
  'recruiter:jobs:pause': jobRef,
  'recruiter:jobs:resume': jobRef,
  'recruiter:jobs:close': jobRef,
  'recruiter:applications:list': (arg) => {
    const o = record(arg, ['jobId'], ['status']);
    const jobId = id(o.jobId, 'jobId');
    return o.status === undefined ? { jobId } : { jobId, status: status(o.status, 'status') };
  },
  'recruiter:applications:get': applicationRef,
  'recruiter:applications:accept': applicationRef,
  'recruiter:applications:reject': (arg) => {
    const o = record(arg, ['jobId', 'applicationId'], ['reason']);
    const ref = { jobId: id(o.jobId, 'jobId'), applicationId: id(o.applicationId, 'applicationId') };
    const reason = optionalString(o.reason, 'reason', 2000);
    // A blank reason is the same as none: the service would store an empty string otherwise.
    return reason === undefined || reason.trim() === '' ? ref : { ...ref, reason: reason.trim() };
  },
  'recruiter:applications:setStatus': (arg) => {
    const o = record(arg, ['jobId', 'applicationId', 'status']);
    if (o.status !== 'shortlisted' && o.status !== 'pending') {
      throw invalid(`"status" must be "shortlisted" or "pending", got ${typeof o.status === 'string' ? `"${o.status.slice(0, 40)}"` : describe(o.status)}.`);
    }
    return { jobId: id(o.jobId, 'jobId'), applicationId: id(o.applicationId, 'applicationId'), status: o.status };
  },
  'recruiter:applications:approveWork': applicationRef,
  'recruiter:champs:search': champSearch,
  'recruiter:champs:get': (arg) => {
    const o = record(arg, ['dataChampId']);
    return { dataChampId: id(o.dataChampId, 'dataChampId') };
  },
  'recruiter:champs:matches': (arg) => {
    const o = record(arg, ['jobId'], ['limit']);
    const jobId = id(o.jobId, 'jobId');
    const limit = optionalInteger(o.limit, 'limit', 1, 50);
    return limit === undefined ? { jobId } : { jobId, limit };
  },
};

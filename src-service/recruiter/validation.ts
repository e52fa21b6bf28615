// Validation of job bodies and query parameters. Every problem is collected per field so one
// 422 answer lists all of them at once.
import { type FieldErrors, isPlainObject, validationFailed } from './http';
import { AVAILABILITIES, type Availability, JOB_TYPES, LOCATION_TYPES, RATE_TYPES } from './store';

export interface JobFields {
  title: string;
  description: string;
  jobType: string;
  locationType: string;
  rate: string;
  rateType: string;
  currency: string;
  numberOfPositions: number;
  requiredSkills: string[];
}

/** Body field -> record field; required_skills is the only optional create field (default []). */
const JOB_FIELDS = {
  title: 'title',
  description: 'description',
  job_type: 'jobType',
  location_type: 'locationType',
  rate: 'rate',
  rate_type: 'rateType',
  currency: 'currency',
  number_of_positions: 'numberOfPositions',
  required_skills: 'requiredSkills',
} as const satisfies Record<string, keyof JobFields>;
type BodyField = keyof typeof JOB_FIELDS;
const REQUIRED_ON_CREATE: BodyField[] = ['title', 'description', 'job_type', 'location_type', 'rate', 'rate_type', 'currency', 'number_of_positions'];

const RATE_PATTERN = /^\d{1,9}(\.\d{1,2})?$/;
const SKILL_PATTERN = /^[a-z0-9][a-z0-9_-]{0,49}$/;

function checkField(field: BodyField, value: unknown): { value: unknown } | { error: string } {
  const oneOf = (list: readonly string[]) =>
    typeof value === 'string' && list.includes(value) ? { value } : { error: `must be one of: ${list.join(', ')}` };
  switch (field) {
    case 'title':
      if (typeof value !== 'string' || value.trim() === '') return { error: 'must be a non-empty string' };
      return value.length > 200 ? { error: 'must be at most 200 characters' } : { value: value.trim() };
    case 'description':
      if (typeof value !== 'string' || value.trim() === '') return { error: 'must be a non-empty string' };
      return value.length > 10_000 ? { error: 'must be at most 10000 characters' } : { value };
    case 'job_type':
      return oneOf(JOB_TYPES);
    case 'location_type':
      return oneOf(LOCATION_TYPES);
    case 'rate_type':
      return oneOf(RATE_TYPES);
    case 'rate':
      if (typeof value !== 'string' || !RATE_PATTERN.test(value)) return { error: 'must be a decimal amount as a string, e.g. "150.00"' };
      return Number(value) > 0 ? { value: Number(value).toFixed(2) } : { error: 'must be greater than 0' };
    case 'currency':
      return typeof value === 'string' && /^[A-Za-z]{3}$/.test(value)
        ? { value: value.toUpperCase() }
        : { error: 'must be a 3-letter currency code, e.g. "EUR"' };
    case 'number_of_positions':
      return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 1000
        ? { value }
        : { error: 'must be an integer from 1 to 1000' };
    case 'required_skills': {
      if (!Array.isArray(value)) return { error: 'must be an array of skill identifiers' };
      if (value.length > 50) return { error: 'must list at most 50 skills' };
      const bad = value.filter((s) => typeof s !== 'string' || !SKILL_PATTERN.test(s.toLowerCase()));
      if (bad.length > 0) return { error: 'must contain skill identifiers (letters, digits, _ and -, at most 50 characters)' };
      return { value: [...new Set((value as string[]).map((s) => s.toLowerCase()))] };
    }
  }
}

/**
 * Validates a create (all required fields) or update (any subset) body. Unknown fields are
 * ignored, so clients written against a later version keep working.
 */
export function parseJobBody(body: unknown, mode: 'create' | 'update'): Partial<JobFields> {
  if (!isPlainObject(body)) throw validationFailed({ body: ['must be a JSON object'] });
  const errors: FieldErrors = {};
  const out: Partial<Record<keyof JobFields, unknown>> = {};
  for (const field of Object.keys(JOB_FIELDS) as BodyField[]) {
    const value = body[field];
    if (value === undefined || value === null) {
      if (mode === 'create' && REQUIRED_ON_CREATE.includes(field)) errors[field] = ['is required'];
      continue;
    }
    const result = checkField(field, value);
    if ('error' in result) errors[field] = [result.error];
    else out[JOB_FIELDS[field]] = result.value;
  }
  if (mode === 'update' && Object.keys(out).length === 0 && Object.keys(errors).length === 0) {
    errors.body = [`must contain at least one of: ${Object.keys(JOB_FIELDS).join(', ')}`];
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return out as Partial<JobFields>;
}

export const MAX_PER_PAGE = 100;

export interface Paging {
  page: number;
  perPage: number;
}

function parsePositiveInt(raw: string | null, fallback: number, field: string, max: number, errors: FieldErrors): number {
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    errors[field] = [max === Number.MAX_SAFE_INTEGER ? 'must be an integer >= 1' : `must be an integer from 1 to ${max}`];
    return fallback;
  }
  return Number(raw);
}

/** page (default 1) and per_page (default 25, at most 100: larger values are refused, not clamped). */
export function parsePaging(params: URLSearchParams, errors: FieldErrors): Paging {
  return {
    page: parsePositiveInt(params.get('page'), 1, 'page', Number.MAX_SAFE_INTEGER, errors),
    perPage: parsePositiveInt(params.get('per_page'), 25, 'per_page', MAX_PER_PAGE, errors),
  };
}

export function paginate<T>(items: T[], paging: Paging) {
  const start = (paging.page - 1) * paging.perPage;
  return {
    items: items.slice(start, start + paging.perPage),
    page: paging.page,
    per_page: paging.perPage,
    total: items.length,
    has_more: start + paging.perPage < items.length,
  };
}

export interface DataChampFilters {
  skills: string[];
  location: string | null;
  country: string | null;
  availability: Availability | null;
  minRate: number | null;
  maxRate: number | null;
  verifiedOnly: boolean;
  search: string | null;
  paging: Paging;
}

function parseRate(raw: string | null, field: string, errors: FieldErrors): number | null {
  if (raw === null || raw.trim() === '') return null;
  if (!/^\d+(\.\d+)?$/.test(raw.trim())) {
    errors[field] = ['must be a non-negative number'];
    return null;
  }
  return Number(raw);
}

const TRUE_VALUES = new Set(['true', '1']);
const FALSE_VALUES = new Set(['false', '0', '']);

/** Parses every Data Champ search filter; any bad value gives one 422 naming each bad parameter. */
export function parseDataChampFilters(params: URLSearchParams): DataChampFilters {
  const errors: FieldErrors = {};
  const text = (name: string) => {
    const v = params.get(name)?.trim();
    return v ? v : null;
  };
  const skills = (params.get('skills') ?? '').split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
  const availability = text('availability');
  if (availability !== null && !(AVAILABILITIES as readonly string[]).includes(availability)) {
    errors.availability = [`must be one of: ${AVAILABILITIES.join(', ')}`];
  }
  const minRate = parseRate(params.get('min_rate'), 'min_rate', errors);
  const maxRate = parseRate(params.get('max_rate'), 'max_rate', errors);
  if (minRate !== null && maxRate !== null && minRate > maxRate) errors.max_rate = ['must not be less than min_rate'];
  const verifiedRaw = (params.get('verified_only') ?? '').trim().toLowerCase();
  if (!TRUE_VALUES.has(verifiedRaw) && !FALSE_VALUES.has(verifiedRaw)) errors.verified_only = ['must be true or false'];
  const paging = parsePaging(params, errors);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return {
    skills,
    location: text('location'),
    country: text('country'),
    availability: availability as Availability | null,
    minRate,
    maxRate,
    verifiedOnly: TRUE_VALUES.has(verifiedRaw),
    search: text('search'),
    paging,
  };
}

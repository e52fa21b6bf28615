// What the recruiter UI offers when: legal job moves and application actions (as the service
// documents them in src-service/recruiter/index.ts), the job form's own checks, and labels.
// Pure functions, so the rules are easy to read in one place.
import type { ApplicationStatus, Job, JobInput, JobStatus, JobType } from '../../src-shared/recruiter-api';

export type JobMove = 'publish' | 'pause' | 'resume' | 'close';

export function legalJobMoves(status: JobStatus): JobMove[] {
  switch (status) {
    case 'draft':
      return ['publish', 'close'];
    case 'active':
      return ['pause', 'close'];
    case 'paused':
      return ['resume', 'close'];
    case 'closed':
      return [];
    // A state this version does not know: closing is the one move the spec allows from any state.
    default:
      return ['close'];
  }
}

export const canEditJob = (status: JobStatus): boolean => status !== 'closed';

export type ApplicationAction = 'shortlist' | 'unshortlist' | 'hire' | 'reject' | 'approveWork';

/** Nothing changes on a closed job; otherwise each action from the statuses that allow it. */
export function legalApplicationActions(status: ApplicationStatus, jobStatus: JobStatus): ApplicationAction[] {
  if (jobStatus === 'closed') return [];
  switch (status) {
    case 'pending':
      return ['shortlist', 'hire', 'reject'];
    case 'shortlisted':
      return ['hire', 'unshortlist', 'reject'];
    case 'hired':
      return ['reject'];
    case 'work_submitted':
      return ['approveWork'];
    default:
      return [];
  }
}

export const JOB_STATUS_LABELS: Record<string, string> = { draft: 'Draft', active: 'Active', paused: 'Paused', closed: 'Closed' };
export const APPLICATION_STATUS_LABELS: Record<string, string> = {
  pending: 'Pending',
  shortlisted: 'Shortlisted',
  hired: 'Hired',
  rejected: 'Rejected',
  work_submitted: 'Work submitted',
  work_approved: 'Work approved',
};

export const statusLabel = (labels: Record<string, string>, status: string): string => labels[status] ?? status.replace(/_/g, ' ');

export const JOB_TYPE_OPTIONS = [
  'survey', 'audit', 'labeling', 'annotation', 'custom', 'transcription',
  'verification', 'voice_recording', 'photo_survey', 'data_entry', 'analytics',
] as const satisfies readonly JobType[];
export const LOCATION_TYPE_OPTIONS = ['on_site', 'remote', 'hybrid'] as const;
export const RATE_TYPE_OPTIONS = ['daily', 'hourly', 'fixed'] as const;
export const humanize = (value: string): string => value.charAt(0).toUpperCase() + value.slice(1).replace(/_/g, ' ');

/** The form's values as typed (all strings), before they become a JobInput. */
export interface JobDraft {
  title: string;
  description: string;
  job_type: string;
  location_type: string;
  rate: string;
  rate_type: string;
  currency: string;
  number_of_positions: string;
  required_skills: string;
}

export type JobField = keyof JobDraft;
export const JOB_FIELDS: readonly JobField[] = ['title', 'description', 'job_type', 'location_type', 'rate', 'rate_type', 'currency', 'number_of_positions', 'required_skills'];

export const EMPTY_DRAFT: JobDraft = {
  title: '', description: '', job_type: 'survey', location_type: 'on_site', rate: '', rate_type: 'daily', currency: 'EUR', number_of_positions: '1', required_skills: '',
};

export function draftOf(job: Job): JobDraft {
  return {
    title: job.title,
    description: job.description,
    job_type: job.job_type,
    location_type: job.location_type ?? 'on_site',
    rate: job.rate,
    rate_type: job.rate_type ?? 'daily',
    currency: job.currency,
    number_of_positions: String(job.number_of_positions),
    required_skills: (job.required_skills ?? []).join(', '),
  };
}

export const splitSkills = (text: string): string[] => text.split(',').map((s) => s.trim()).filter((s) => s !== '');
const SKILL = /^[A-Za-z0-9][A-Za-z0-9_-]{0,49}$/;

/** The service's limits (src-service/recruiter/validation.ts), repeated so people learn them before a round trip. */
export const JOB_LIMITS = { title: 200, description: 10_000, positions: 1000, skills: 50, rateDigits: 9, rateDecimals: 2 } as const;

export type Parsed = { ok: true; value: string } | { ok: false; error: string };

/**
 * An amount as people type it: "12.50" or "12,50" (a decimal comma, as most of Europe writes
 * it) both give "12.50". Thousands separators are refused rather than guessed: "1,250" could
 * be 1250 or 1.25, and "1.250,00" mixes both marks, so the message says how to write it.
 */
export function parseAmount(text: string, maxDecimals: number = Infinity): Parsed {
  const t = text.trim();
  const match = /^(\d+)(?:[.,](\d+))?$/.exec(t);
  if (!match) {
    return /^[\d.,\s']+$/.test(t) && /\d/.test(t)
      ? { ok: false, error: 'Write the amount without thousands separators, e.g. 1250.50 or 1250,50.' }
      : { ok: false, error: 'Enter an amount in digits, e.g. 150.00 or 150,00.' };
  }
  const [, whole = '', decimals] = match;
  if (decimals !== undefined && decimals.length === 3 && t.includes(',')) {
    return { ok: false, error: `"${t}" is ambiguous: write ${whole}${decimals} for thousands (no separators), or ${whole}.${decimals.slice(0, 2)} for decimals.` };
  }
  if (decimals !== undefined && decimals.length > maxDecimals) return { ok: false, error: `Use at most ${maxDecimals} decimals, e.g. 12.50.` };
  const digits = whole.replace(/^0+(?=\d)/, '');
  return { ok: true, value: decimals === undefined ? digits : `${digits}.${decimals}` };
}

/** The job's rate: an amount greater than 0 with at most 9 digits before and 2 after the point. */
export function parseRate(text: string): Parsed {
  const parsed = parseAmount(text, JOB_LIMITS.rateDecimals);
  if (!parsed.ok) return parsed;
  if (Number(parsed.value) <= 0) return { ok: false, error: 'The rate must be greater than 0.' };
  if (parsed.value.split('.')[0]!.length > JOB_LIMITS.rateDigits) {
    return { ok: false, error: `Use at most ${JOB_LIMITS.rateDigits} digits before the decimal point.` };
  }
  return parsed;
}

/** The service's rules for a job, checked in the form so each shows at its field before a round trip. */
export function checkDraft(d: JobDraft): Partial<Record<JobField, string>> {
  const errors: Partial<Record<JobField, string>> = {};
  const title = d.title.trim();
  if (title === '') errors.title = 'Enter a title.';
  else if (title.length > JOB_LIMITS.title) errors.title = `Keep the title to ${JOB_LIMITS.title} characters or fewer (it has ${title.length}).`;
  const description = d.description.trim();
  if (description === '') errors.description = 'Describe the job.';
  else if (description.length > JOB_LIMITS.description) errors.description = `Keep the description to ${JOB_LIMITS.description} characters or fewer (it has ${description.length}).`;
  if (d.job_type === '') errors.job_type = 'Choose a job type.';
  if (d.rate.trim() === '') errors.rate = 'Enter the rate.';
  else {
    const rate = parseRate(d.rate);
    if (!rate.ok) errors.rate = rate.error;
  }
  if (!/^[A-Za-z]{3}$/.test(d.currency.trim())) errors.currency = 'Use a 3-letter currency code, e.g. EUR.';
  const positions = d.number_of_positions.trim();
  if (!/^\d+$/.test(positions) || Number(positions) < 1 || Number(positions) > JOB_LIMITS.positions) {
    errors.number_of_positions = `Enter a whole number from 1 to ${JOB_LIMITS.positions}.`;
  }
  const skills = splitSkills(d.required_skills);
  const badSkill = skills.find((s) => !SKILL.test(s));
  if (badSkill !== undefined) errors.required_skills = `"${badSkill}" is not a skill identifier (letters, digits, _ and -, at most 50 characters).`;
  else if (new Set(skills.map((s) => s.toLowerCase())).size > JOB_LIMITS.skills) errors.required_skills = `List at most ${JOB_LIMITS.skills} skills.`;
  return errors;
}

/** "12,50" is sent as "12.50"; text checkDraft refused is sent as typed (the service answers). */
const normalRate = (text: string): string => {
  const rate = parseRate(text);
  return rate.ok ? rate.value : text.trim();
};

export function toJobInput(d: JobDraft): JobInput {
  return {
    title: d.title.trim(),
    description: d.description.trim(),
    job_type: d.job_type,
    location_type: d.location_type,
    rate: normalRate(d.rate),
    rate_type: d.rate_type,
    currency: d.currency.trim().toUpperCase(),
    number_of_positions: Number(d.number_of_positions.trim()),
    required_skills: [...new Set(splitSkills(d.required_skills).map((s) => s.toLowerCase()))],
  };
}

/** Only what changed, for the partial PUT. */
export function changedFields(before: JobDraft, after: JobDraft): Partial<JobInput> {
  const a = toJobInput(after);
  const b = toJobInput(before);
  const out: Record<string, unknown> = {};
  for (const field of JOB_FIELDS) {
    if (JSON.stringify(a[field]) !== JSON.stringify(b[field])) out[field] = a[field];
  }
  return out as Partial<JobInput>;
}

/** Splits service field errors into those the form shows at a field and the rest. */
export function placeFieldErrors(fieldErrors: Record<string, string[]> | undefined): { byField: Partial<Record<JobField, string>>; other: string[] } {
  const byField: Partial<Record<JobField, string>> = {};
  const other: string[] = [];
  for (const [field, messages] of Object.entries(fieldErrors ?? {})) {
    if ((JOB_FIELDS as readonly string[]).includes(field)) byField[field as JobField] = messages.join(' ');
    else other.push(`${field === 'base' ? '' : `${humanize(field)}: `}${messages.join(' ')}`);
  }
  return { byField, other };
}

export function formatMoney(amount: string | null, currency: string | null): string {
  if (amount === null) return '—';
  return currency ? `${amount} ${currency}` : amount;
}

/**
 * The Data Champ asks more per day than the job pays (same currency, a daily job): said in both
 * amounts before hiring or when comparing a profile with a job. Null when the rates cannot be
 * compared (another currency or rate type, no rate) or the champ's is within.
 */
export function champRateAboveJob(
  champ: { daily_rate: string | null; currency: string | null } | null,
  job: { rate: string; rate_type: string | null; currency: string },
): string | null {
  if (!champ || champ.daily_rate == null || job.rate_type !== 'daily') return null;
  if (champ.currency && job.currency && champ.currency !== job.currency) return null;
  if (!(Number(champ.daily_rate) > Number(job.rate))) return null;
  return `Their daily rate (${formatMoney(champ.daily_rate, champ.currency ?? job.currency)}) is above this job's (${formatMoney(job.rate, job.currency)}).`;
}

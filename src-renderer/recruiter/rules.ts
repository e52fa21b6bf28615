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

/**
 * The checks people benefit from before a round trip: required fields and obvious formats.
 * The finer rules (e.g. at most 1000 positions, two decimals) are the service's; its 422
 * answer lands on the same fields.
 */
export function checkDraft(d: JobDraft): Partial<Record<JobField, string>> {
  const errors: Partial<Record<JobField, string>> = {};
  if (d.title.trim() === '') errors.title = 'Enter a title.';
  if (d.description.trim() === '') errors.description = 'Describe the job.';
  if (d.job_type === '') errors.job_type = 'Choose a job type.';
  if (d.rate.trim() === '') errors.rate = 'Enter the rate.';
  else if (!/^\d+(\.\d+)?$/.test(d.rate.trim()) || Number(d.rate) <= 0) errors.rate = 'The rate must be an amount greater than 0, e.g. 150.00.';
  if (!/^[A-Za-z]{3}$/.test(d.currency.trim())) errors.currency = 'Use a 3-letter currency code, e.g. EUR.';
  if (!/^\d+$/.test(d.number_of_positions.trim()) || Number(d.number_of_positions) < 1) errors.number_of_positions = 'Enter a whole number of at least 1.';
  const badSkill = splitSkills(d.required_skills).find((s) => !SKILL.test(s));
  if (badSkill !== undefined) errors.required_skills = `"${badSkill}" is not a skill identifier (letters, digits, _ and -).`;
  return errors;
}

export function toJobInput(d: JobDraft): JobInput {
  return {
    title: d.title.trim(),
    description: d.description.trim(),
    job_type: d.job_type,
    location_type: d.location_type,
    rate: d.rate.trim(),
    rate_type: d.rate_type,
    currency: d.currency.trim().toUpperCase(),
    number_of_positions: Number(d.number_of_positions.trim()),
    required_skills: splitSkills(d.required_skills).map((s) => s.toLowerCase()),
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

// Data Champ discovery: search with filters, public profiles and recommended matches for a job.
import { notFound, validationFailed } from './http';
import { loadOwnJob, ok, parseId, type Reply, type RequestContext } from './context';
import type { DataChamp, Job } from './store';
import { applicationsOfJob } from './store';
import { paginate, parseDataChampFilters, type DataChampFilters } from './validation';
import { dataChampView } from './views';

const fold = (s: string): string => s.toLocaleLowerCase('en');

/** Skills: every listed skill must be held (all, not any). Location matches city or region. */
function matchesFilters(c: DataChamp, f: DataChampFilters): boolean {
  const rate = Number(c.dailyRate);
  return (
    f.skills.every((s) => c.skills.includes(s)) &&
    (f.location === null || fold(c.city) === fold(f.location) || fold(c.region) === fold(f.location)) &&
    (f.country === null || fold(c.country) === fold(f.country)) &&
    (f.availability === null || c.availability === f.availability) &&
    (f.minRate === null || rate >= f.minRate) &&
    (f.maxRate === null || rate <= f.maxRate) &&
    (!f.verifiedOnly || c.verified) &&
    (f.search === null || fold(c.name).includes(fold(f.search)))
  );
}

export function searchDataChamps(ctx: RequestContext): Reply {
  const filters = parseDataChampFilters(ctx.url.searchParams);
  const found = [...ctx.store.dataChamps.values()].filter((c) => matchesFilters(c, filters)).sort((a, b) => a.id - b.id);
  const { items, ...meta } = paginate(found, filters.paging);
  return ok({ data_champs: items.map(dataChampView), ...meta });
}

export function getDataChamp(ctx: RequestContext, id: string): Reply {
  const champId = parseId(id, 'data champ');
  const champ = ctx.store.dataChamps.get(champId);
  if (!champ) throw notFound(`data champ ${champId} not found`);
  return ok({ data_champ: dataChampView(champ) });
}

/** The most a Data Champ's daily rate may be to fit the job's rate. */
function dailyBudget(job: Job): number {
  const rate = Number(job.rate);
  if (job.rateType === 'hourly') return rate * 8; // an eight-hour working day
  return rate; // daily as is; a fixed price is a budget a single day must fit in
}

const AVAILABILITY_POINTS = { available: 20, busy: 8, unavailable: 0 } as const;

/**
 * Score 0..100: skill overlap up to 50, rate within the job's rate 20, availability up to 20,
 * verification 10. With required skills, only Data Champs holding at least one are offered;
 * those who already applied are left out.
 */
export function scoreMatch(job: Job, c: DataChamp): { score: number; reasons: string[] } | null {
  const reasons: string[] = [];
  let score = 0;
  const shared = job.requiredSkills.filter((s) => c.skills.includes(s));
  if (job.requiredSkills.length > 0) {
    if (shared.length === 0) return null;
    score += Math.round((50 * shared.length) / job.requiredSkills.length);
    reasons.push(`has ${shared.length} of ${job.requiredSkills.length} required skills: ${shared.join(', ')}`);
  } else {
    score += 25;
    reasons.push('the job lists no required skills');
  }
  if (c.currency !== job.currency) {
    reasons.push(`daily rate is in ${c.currency}, the job pays in ${job.currency}`);
  } else if (Number(c.dailyRate) <= dailyBudget(job)) {
    score += 20;
    reasons.push(`daily rate ${c.dailyRate} ${c.currency} is within the job's rate`);
  } else {
    reasons.push(`daily rate ${c.dailyRate} ${c.currency} is above the job's rate`);
  }
  score += AVAILABILITY_POINTS[c.availability];
  reasons.push(c.availability === 'available' ? 'available now' : `currently ${c.availability}`);
  if (c.verified) {
    score += 10;
    reasons.push('verified');
  }
  return { score, reasons };
}

/** `limit` (default 10, 1 to 50) caps the number of matches. */
export function getMatches(ctx: RequestContext, jobId: string): Reply {
  const job = loadOwnJob(ctx, jobId);
  const rawLimit = ctx.url.searchParams.get('limit');
  if (rawLimit !== null && (!/^\d+$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > 50)) {
    throw validationFailed({ limit: ['must be an integer from 1 to 50'] });
  }
  const limit = rawLimit === null ? 10 : Number(rawLimit);
  const applied = new Set(applicationsOfJob(ctx.store, job.id).map((a) => a.dataChampId));
  const matches = [...ctx.store.dataChamps.values()]
    .filter((c) => !applied.has(c.id))
    .flatMap((c) => {
      const m = scoreMatch(job, c);
      return m ? [{ champ: c, ...m }] : [];
    })
    .sort((a, b) => b.score - a.score || a.champ.id - b.champ.id)
    .slice(0, limit);
  return ok({
    job_id: job.id,
    matches: matches.map((m) => ({ data_champ: dataChampView(m.champ), score: m.score, reasons: m.reasons })),
  });
}

// Wire shapes of the recruiter API. Only what is listed here leaves the service: in particular
// a Data Champ's email and phone never do.
import type { Application, DataChamp, Job, Organization, RecruiterStore } from './store';
import { applicationsOfJob } from './store';
import { keyPrefix } from './auth';

export function dataChampView(c: DataChamp) {
  return {
    id: c.id,
    name: c.name,
    bio: c.bio,
    skills: c.skills,
    languages: c.languages,
    city: c.city,
    region: c.region,
    country: c.country,
    availability: c.availability,
    daily_rate: c.dailyRate,
    currency: c.currency,
    verified: c.verified,
    rating: c.rating,
    completed_jobs: c.completedJobs,
    joined_at: c.joinedAt,
  };
}

export function applicationView(store: RecruiterStore, a: Application) {
  const champ = store.dataChamps.get(a.dataChampId);
  return {
    id: a.id,
    job_id: a.jobId,
    data_champ_id: a.dataChampId,
    data_champ: champ ? dataChampView(champ) : null,
    status: a.status,
    cover_letter: a.coverLetter,
    proposed_rate: a.proposedRate,
    rejection_reason: a.rejectionReason,
    applied_at: a.appliedAt,
    updated_at: a.updatedAt,
  };
}

export function jobView(store: RecruiterStore, j: Job) {
  const applications = applicationsOfJob(store, j.id);
  return {
    id: j.id,
    title: j.title,
    description: j.description,
    job_type: j.jobType,
    location_type: j.locationType,
    rate: j.rate,
    rate_type: j.rateType,
    currency: j.currency,
    number_of_positions: j.numberOfPositions,
    required_skills: j.requiredSkills,
    status: j.status,
    applications_count: applications.length,
    hired_count: applications.filter((a) => HIRED_STATUSES.has(a.status)).length,
    created_at: j.createdAt,
    updated_at: j.updatedAt,
    published_at: j.publishedAt,
    closed_at: j.closedAt,
  };
}

/** Statuses that hold one of the job's positions. */
export const HIRED_STATUSES = new Set(['hired', 'work_submitted', 'work_approved']);

export function meView(org: Organization) {
  return {
    organization: { id: org.id, name: org.name, created_at: org.createdAt },
    key: { name: org.keyName, prefix: keyPrefix(org.apiKey), scopes: org.scopes },
  };
}

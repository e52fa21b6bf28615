// In-memory state of the recruiter API: organizations with their keys, jobs, applications and
// Data Champs. Records here are the internal shape; views.ts decides what goes on the wire.

export type Scope = 'jobs:read' | 'jobs:write' | 'data_champs:read';
export const ALL_SCOPES: readonly Scope[] = ['jobs:read', 'jobs:write', 'data_champs:read'];

export const JOB_TYPES = [
  'survey', 'audit', 'labeling', 'annotation', 'custom', 'transcription',
  'verification', 'voice_recording', 'photo_survey', 'data_entry', 'analytics',
] as const;
export const LOCATION_TYPES = ['on_site', 'remote', 'hybrid'] as const;
export const RATE_TYPES = ['daily', 'hourly', 'fixed'] as const;
export const AVAILABILITIES = ['available', 'busy', 'unavailable'] as const;

export type JobStatus = 'draft' | 'active' | 'paused' | 'closed';
export type ApplicationStatus = 'pending' | 'shortlisted' | 'hired' | 'rejected' | 'work_submitted' | 'work_approved';
export type Availability = (typeof AVAILABILITIES)[number];

export interface Organization {
  id: number;
  name: string;
  createdAt: string;
  keyName: string;
  apiKey: string;
  scopes: Scope[];
}

export interface Job {
  id: number;
  organizationId: number;
  title: string;
  description: string;
  jobType: string;
  locationType: string;
  rate: string;
  rateType: string;
  currency: string;
  numberOfPositions: number;
  requiredSkills: string[];
  status: JobStatus;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
  closedAt: string | null;
}

export interface Application {
  id: number;
  jobId: number;
  dataChampId: number;
  status: ApplicationStatus;
  coverLetter: string;
  proposedRate: string;
  appliedAt: string;
  updatedAt: string;
  rejectionReason: string | null;
}

export interface DataChamp {
  id: number;
  name: string;
  /** Private: never leaves the service. */
  email: string;
  /** Private: never leaves the service. */
  phone: string;
  bio: string;
  skills: string[];
  languages: string[];
  city: string;
  region: string;
  country: string;
  availability: Availability;
  dailyRate: string;
  currency: string;
  verified: boolean;
  rating: number;
  completedJobs: number;
  joinedAt: string;
}

export interface RecruiterStore {
  organizations: Organization[];
  jobs: Map<number, Job>;
  applications: Map<number, Application>;
  dataChamps: Map<number, DataChamp>;
  nextJobId: number;
  nextApplicationId: number;
  /** The service clock; injectable so tests of time stamps stay deterministic. */
  now: () => Date;
}

export function applicationsOfJob(store: RecruiterStore, jobId: number): Application[] {
  return [...store.applications.values()].filter((a) => a.jobId === jobId).sort((a, b) => a.id - b.id);
}

// Deterministic demo data: the same seed always gives the same organizations, keys, jobs,
// applications and Data Champs, so tests and the `demo` command are reproducible.
import type {
  Application, ApplicationStatus, Availability, DataChamp, Job, JobStatus, Organization, RecruiterStore, Scope,
} from './store';
import { createPrng } from '../prng';

function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

function pickDistinct<T>(random: () => number, items: readonly T[], count: number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < count && pool.length > 0) {
    const [item] = pool.splice(Math.floor(random() * pool.length), 1);
    if (item !== undefined) out.push(item);
  }
  return out;
}

function hex(random: () => number, length: number): string {
  let s = '';
  while (s.length < length) s += Math.floor(random() * 16).toString(16);
  return s;
}

const EPOCH = Date.parse('2025-01-06T09:00:00Z');
const at = (hours: number): string => new Date(EPOCH + hours * 3_600_000).toISOString();

export const SKILLS = [
  'survey', 'photography', 'video_recording', 'voice_recording', 'transcription', 'translation',
  'data_entry', 'labeling', 'annotation', 'audit', 'mystery_shopping', 'interviewing',
  'driving', 'retail', 'spanish', 'french', 'german', 'arabic', 'excel', 'smartphone',
] as const;

const PLACES: ReadonlyArray<{ city: string; region: string; country: string }> = [
  { city: 'Berlin', region: 'Berlin', country: 'Germany' },
  { city: 'Munich', region: 'Bavaria', country: 'Germany' },
  { city: 'Nuremberg', region: 'Bavaria', country: 'Germany' },
  { city: 'Hamburg', region: 'Hamburg', country: 'Germany' },
  { city: 'Paris', region: 'Île-de-France', country: 'France' },
  { city: 'Lyon', region: 'Auvergne-Rhône-Alpes', country: 'France' },
  { city: 'Madrid', region: 'Community of Madrid', country: 'Spain' },
  { city: 'Barcelona', region: 'Catalonia', country: 'Spain' },
  { city: 'Nairobi', region: 'Nairobi County', country: 'Kenya' },
  { city: 'Mombasa', region: 'Mombasa County', country: 'Kenya' },
  { city: 'Lagos', region: 'Lagos State', country: 'Nigeria' },
  { city: 'Manchester', region: 'Greater Manchester', country: 'United Kingdom' },
  { city: 'London', region: 'Greater London', country: 'United Kingdom' },
];

const FIRST_NAMES = [
  'Amara', 'Ben', 'Chidi', 'Dana', 'Elif', 'Farid', 'Grace', 'Hugo', 'Ines', 'Jonas', 'Kemi', 'Lena',
  'Mateo', 'Nadia', 'Omar', 'Priya', 'Quentin', 'Rosa', 'Samir', 'Tara', 'Uche', 'Vera', 'Wanjiru', 'Yusuf', 'Zoe',
];
const LAST_NAMES = [
  'Adeyemi', 'Becker', 'Costa', 'Dubois', 'Estrada', 'Fischer', 'Garcia', 'Hoffmann', 'Ivanova', 'Kamau',
  'Laurent', 'Martin', 'Nowak', 'Okafor', 'Petit', 'Richter', 'Schmidt', 'Torres', 'Wagner', 'Otieno',
];
const LANGUAGES = ['English', 'German', 'French', 'Spanish', 'Swahili', 'Yoruba', 'Arabic'];
const AVAILABILITY_WEIGHTS: ReadonlyArray<[Availability, number]> = [['available', 0.55], ['busy', 0.3], ['unavailable', 0.15]];

function pickAvailability(random: () => number): Availability {
  let r = random();
  for (const [value, weight] of AVAILABILITY_WEIGHTS) {
    if (r < weight) return value;
    r -= weight;
  }
  return 'available';
}

function makeDataChamps(random: () => number, count: number): DataChamp[] {
  const champs: DataChamp[] = [];
  for (let id = 1; id <= count; id++) {
    const first = pick(random, FIRST_NAMES);
    const last = pick(random, LAST_NAMES);
    const place = pick(random, PLACES);
    champs.push({
      id,
      name: `${first} ${last}`,
      email: `${first}.${last}.${id}@example.org`.toLowerCase(),
      phone: `+49 30 ${String(1_000_000 + id * 7919).slice(0, 7)}`,
      bio: `${first} has collected field data in ${place.city} and nearby.`,
      skills: pickDistinct(random, SKILLS, 2 + Math.floor(random() * 4)).sort(),
      languages: pickDistinct(random, LANGUAGES, 1 + Math.floor(random() * 2)),
      ...place,
      availability: pickAvailability(random),
      dailyRate: `${60 + 5 * Math.floor(random() * 69)}.00`,
      currency: 'EUR',
      verified: random() < 0.6,
      rating: Math.round((3 + random() * 2) * 10) / 10,
      completedJobs: Math.floor(random() * 60),
      joinedAt: at(-24 * (30 + Math.floor(random() * 700))),
    });
  }
  return champs;
}

interface JobPlan {
  title: string;
  jobType: string;
  locationType: string;
  rate: string;
  rateType: string;
  skills: string[];
  status: JobStatus;
  positions: number;
  applications: ApplicationStatus[];
}

const FULL_ORG_JOBS: JobPlan[] = [
  { title: 'Street survey in Berlin', jobType: 'survey', locationType: 'on_site', rate: '150.00', rateType: 'daily', skills: ['survey', 'smartphone'], status: 'active', positions: 5,
    applications: ['pending', 'pending', 'shortlisted', 'hired', 'rejected', 'work_submitted', 'work_approved'] },
  { title: 'Shelf audit in Bavarian supermarkets', jobType: 'audit', locationType: 'on_site', rate: '180.00', rateType: 'daily', skills: ['audit', 'photography', 'retail'], status: 'draft', positions: 3, applications: [] },
  { title: 'Kitchen video recordings', jobType: 'custom', locationType: 'hybrid', rate: '200.00', rateType: 'daily', skills: ['video_recording'], status: 'paused', positions: 2,
    applications: ['pending', 'work_submitted'] },
  { title: 'Receipt transcription', jobType: 'transcription', locationType: 'remote', rate: '18.50', rateType: 'hourly', skills: ['transcription', 'data_entry'], status: 'closed', positions: 4,
    applications: ['pending', 'work_submitted', 'work_approved'] },
  { title: 'Spanish voice prompts', jobType: 'voice_recording', locationType: 'remote', rate: '400.00', rateType: 'fixed', skills: ['voice_recording', 'spanish'], status: 'active', positions: 10,
    applications: ['shortlisted'] },
];

const READ_ONLY_ORG_JOBS: JobPlan[] = [
  { title: 'Store opening hours check', jobType: 'verification', locationType: 'on_site', rate: '120.00', rateType: 'daily', skills: ['mystery_shopping'], status: 'active', positions: 2, applications: ['pending'] },
  { title: 'Menu photo survey', jobType: 'photo_survey', locationType: 'on_site', rate: '90.00', rateType: 'daily', skills: ['photography'], status: 'closed', positions: 1, applications: ['work_approved'] },
];

const DISCOVERY_ORG_JOBS: JobPlan[] = [
  { title: 'Image labeling sprint', jobType: 'labeling', locationType: 'remote', rate: '140.00', rateType: 'daily', skills: ['labeling', 'annotation'], status: 'active', positions: 6, applications: [] },
];

interface OrgPlan {
  name: string;
  keyName: string;
  scopes: Scope[];
  jobs: JobPlan[];
}

const ORGS: OrgPlan[] = [
  { name: 'Acme Field Research', keyName: 'acme-integration', scopes: ['jobs:read', 'jobs:write', 'data_champs:read'], jobs: FULL_ORG_JOBS },
  { name: 'Readonly Recruiting', keyName: 'readonly-dashboard', scopes: ['jobs:read'], jobs: READ_ONLY_ORG_JOBS },
  { name: 'Talent Scouts', keyName: 'scouts-discovery', scopes: ['data_champs:read'], jobs: DISCOVERY_ORG_JOBS },
  { name: 'Globex Staffing', keyName: 'globex-integration', scopes: ['jobs:read', 'jobs:write', 'data_champs:read'], jobs: FULL_ORG_JOBS.slice(0, 3) },
];

export function createDemoStore(opts: { seed: number; dataChampCount?: number; now?: () => Date }): RecruiterStore {
  const random = createPrng(opts.seed);
  const store: RecruiterStore = {
    organizations: [],
    jobs: new Map(),
    applications: new Map(),
    dataChamps: new Map(),
    nextJobId: 1,
    nextApplicationId: 1,
    now: opts.now ?? (() => new Date()),
  };
  for (const champ of makeDataChamps(random, opts.dataChampCount ?? 200)) store.dataChamps.set(champ.id, champ);
  const champIds = [...store.dataChamps.keys()];

  ORGS.forEach((plan, index) => {
    const org: Organization = {
      id: index + 1,
      name: plan.name,
      createdAt: at(-24 * (400 - index * 30)),
      keyName: plan.keyName,
      apiKey: `rk_live_${hex(random, 40)}`,
      scopes: [...plan.scopes],
    };
    store.organizations.push(org);
    plan.jobs.forEach((jp, jobIndex) => {
      const created = at(-24 * (60 - jobIndex * 5) + index);
      const job: Job = {
        id: store.nextJobId++,
        organizationId: org.id,
        title: jp.title,
        description: `${jp.title}: instructions are shared with hired Data Champs.`,
        jobType: jp.jobType,
        locationType: jp.locationType,
        rate: jp.rate,
        rateType: jp.rateType,
        currency: 'EUR',
        numberOfPositions: jp.positions,
        requiredSkills: [...jp.skills],
        status: jp.status,
        createdAt: created,
        updatedAt: at(-24 * (40 - jobIndex * 5) + index),
        publishedAt: jp.status === 'draft' ? null : at(-24 * (50 - jobIndex * 5) + index),
        closedAt: jp.status === 'closed' ? at(-24 * (40 - jobIndex * 5) + index) : null,
      };
      store.jobs.set(job.id, job);
      const applicants = pickDistinct(random, champIds, jp.applications.length);
      jp.applications.forEach((status, appIndex) => {
        const champ = store.dataChamps.get(applicants[appIndex] ?? 1);
        const application: Application = {
          id: store.nextApplicationId++,
          jobId: job.id,
          dataChampId: champ?.id ?? 1,
          status,
          coverLetter: `I would like to work on "${jp.title}".`,
          proposedRate: champ?.dailyRate ?? jp.rate,
          appliedAt: at(-24 * (45 - jobIndex * 5) + appIndex),
          updatedAt: at(-24 * (30 - jobIndex * 5) + appIndex),
          rejectionReason: status === 'rejected' ? 'Not available on the required dates.' : null,
        };
        store.applications.set(application.id, application);
      });
    });
  });
  return store;
}

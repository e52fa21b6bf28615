// Recruiter workspace channels, merged into the one IPC contract (contract.ts). Types only.
//
// The recruiter key is separate from the delivery key: it is stored in the secret store under
// the recruiter base URL (never the delivery one) and only what GET /me says about it crosses
// to the renderer. Arguments use the contract's camelCase; resources keep the API's names.
import type {
  Application, DataChamp, DataChampsPage, Job, JobDetail, JobInput, JobsPage, JobUpdate, Match,
} from '../../src-shared/recruiter-api';
import type { SecretStoreKind } from './contract';

export type {
  Application, DataChamp, DataChampsPage, Job, JobDetail, JobInput, JobsPage, JobUpdate, Match,
} from '../../src-shared/recruiter-api';

/** What the UI may know about the recruiter connection: never the key itself. */
export interface RecruiterConnectionInfo {
  baseUrl: string;
  organization: { id: number; name: string };
  key: { name: string | null; prefix: string | null; scopes: string[] };
  secretStore: SecretStoreKind;
  secretStoreWarning?: string;
}

export type ChampAvailability = 'available' | 'busy' | 'unavailable';

/** Data Champ search: every filter of GET /data-champs, all optional. */
export interface ChampSearchArg {
  /** All listed skills must be held. */
  skills?: string[];
  /** City or region. */
  location?: string;
  country?: string;
  availability?: ChampAvailability;
  minRate?: number;
  maxRate?: number;
  verifiedOnly?: boolean;
  /** Name substring. */
  search?: string;
  page?: number;
  /** 1..100 (the service refuses more rather than clamping). */
  perPage?: number;
}

type JobRef = { jobId: number };
type ApplicationRef = { jobId: number; applicationId: number };

export interface RecruiterInvokeChannels {
  'recruiter:connection:get': { arg: undefined; result: RecruiterConnectionInfo | null };
  /** Checks the key with GET /me; stores it only when accepted. */
  'recruiter:connect': { arg: { baseUrl: string; apiKey: string }; result: RecruiterConnectionInfo };
  'recruiter:forget': { arg: undefined; result: null };
  'recruiter:jobs:list': { arg: { page?: number; perPage?: number; status?: string }; result: JobsPage };
  'recruiter:jobs:get': { arg: JobRef; result: JobDetail };
  'recruiter:jobs:create': { arg: { job: JobInput }; result: Job };
  'recruiter:jobs:update': { arg: JobRef & { changes: JobUpdate }; result: Job };
  'recruiter:jobs:publish': { arg: JobRef; result: Job };
  'recruiter:jobs:pause': { arg: JobRef; result: Job };
  'recruiter:jobs:resume': { arg: JobRef; result: Job };
  'recruiter:jobs:close': { arg: JobRef; result: Job };
  'recruiter:applications:list': { arg: JobRef & { status?: string }; result: Application[] };
  'recruiter:applications:get': { arg: ApplicationRef; result: Application };
  'recruiter:applications:accept': { arg: ApplicationRef; result: Application };
  'recruiter:applications:reject': { arg: ApplicationRef & { reason?: string }; result: Application };
  /** The service allows shortlisted (from pending) and back to pending (from shortlisted). */
  'recruiter:applications:setStatus': { arg: ApplicationRef & { status: 'shortlisted' | 'pending' }; result: Application };
  'recruiter:applications:approveWork': { arg: ApplicationRef; result: Application };
  'recruiter:champs:search': { arg: ChampSearchArg; result: DataChampsPage };
  'recruiter:champs:get': { arg: { dataChampId: number }; result: DataChamp };
  'recruiter:champs:matches': { arg: JobRef & { limit?: number }; result: Match[] };
}

export type RecruiterInvokeChannel = keyof RecruiterInvokeChannels;

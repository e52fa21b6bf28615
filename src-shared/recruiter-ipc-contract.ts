// Recruiter workspace channels, merged into the one IPC contract (ipc-contract.ts): argument
// schemas and result types.
//
// The recruiter key is separate from the delivery key: it is stored in the secret store under
// the recruiter base URL (never the delivery one) and only what GET /me says about it crosses
// to the window. Arguments use the contract's camelCase; resources keep the API's names.
//
// Arguments are checked by type and size only. Business rules of a job (blank title, rate > 0,
// positions <= 1000...) are the service's: its 422 names the field, shown next to the input.
import { z } from 'zod';
// Until the API types move to src-shared, they come from src-main (types only).
import type {
  Application, DataChamp, DataChampsPage, Job, JobDetail, JobsPage, Match,
} from './recruiter-api';
import type { SecretStoreKind } from './secret-store-kind';
import { apiKeySchema, args, baseUrlSchema, bool, decimal, integer, matching, noArgument, oneOf, text } from './schema-kit';

export type {
  Application, DataChamp, DataChampsPage, Job, JobDetail, JobInput, JobsPage, JobUpdate, Match,
} from './recruiter-api';

/** What the window may know about the recruiter connection: never the key itself. */
export interface RecruiterConnectionInfo {
  baseUrl: string;
  organization: { id: number; name: string };
  key: { name: string | null; prefix: string | null; scopes: string[] };
  secretStore: SecretStoreKind;
  secretStoreWarning?: string;
}

const id = integer(1, Number.MAX_SAFE_INTEGER);
const status = matching(32, /^[a-z_]{1,32}$/, 'a status name such as "active"');
const skills = z
  .array(matching(50, /^[A-Za-z0-9][A-Za-z0-9_-]{0,49}$/, 'a skill identifier (letters, digits, _ and -)'), {
    error: 'must be an array of skill identifiers.',
  })
  .max(50, { error: (iss) => `lists ${(iss.input as unknown[]).length} skills (at most 50).` });

const jobFields = {
  title: text(1000),
  description: text(20_000),
  job_type: text(64),
  location_type: text(64),
  rate: text(32),
  rate_type: text(64),
  currency: text(16),
  number_of_positions: integer(-1_000_000_000, 1_000_000_000),
  required_skills: skills.optional(),
};
const jobInput = args(jobFields);
const jobUpdate = jobInput.partial().refine((changes) => Object.keys(changes).length > 0, { error: 'names no field to change.' });

export const CHAMP_AVAILABILITIES = ['available', 'busy', 'unavailable'] as const;
export type ChampAvailability = (typeof CHAMP_AVAILABILITIES)[number];

const optionalPage = integer(1, 1_000_000).optional();
const jobRef = args({ jobId: id });
const applicationRef = args({ jobId: id, applicationId: id });

/** Data Champ search: every filter of GET /data-champs, all optional; no argument = everyone, first page. */
const champSearch = args({
  /** All listed skills must be held. */
  skills: skills.optional(),
  /** City or region. */
  location: text(100).optional(),
  country: text(100).optional(),
  availability: oneOf(CHAMP_AVAILABILITIES).optional(),
  minRate: decimal(0, 10_000_000).optional(),
  maxRate: decimal(0, 10_000_000).optional(),
  verifiedOnly: bool().optional(),
  /** Name substring. */
  search: text(100).optional(),
  page: optionalPage,
  /** 1..100 (the service refuses more rather than clamping). */
  perPage: integer(1, 100).optional(),
});
export type ChampSearchArg = z.input<typeof champSearch>;

export const recruiterArgSchemas = {
  'recruiter:connection:get': noArgument(),
  'recruiter:connect': args({ apiKey: apiKeySchema, baseUrl: baseUrlSchema }),
  'recruiter:forget': noArgument(),
  'recruiter:jobs:list': args({ page: optionalPage, perPage: integer(1, 100).optional(), status: status.optional() })
    .nullish()
    .transform((arg) => arg ?? {}),
  'recruiter:jobs:get': jobRef,
  'recruiter:jobs:create': args({ job: jobInput }),
  'recruiter:jobs:update': args({ jobId: id, changes: jobUpdate }),
  'recruiter:jobs:publish': jobRef,
  'recruiter:jobs:pause': jobRef,
  'recruiter:jobs:resume': jobRef,
  'recruiter:jobs:close': jobRef,
  'recruiter:applications:list': args({ jobId: id, status: status.optional() }),
  'recruiter:applications:get': applicationRef,
  'recruiter:applications:accept': applicationRef,
  // A blank reason is the same as none: the service would store an empty string otherwise.
  'recruiter:applications:reject': args({ jobId: id, applicationId: id, reason: text(2000).optional() }).transform(({ reason, ...ref }): { jobId: number; applicationId: number; reason?: string } => {
    const trimmed = reason?.trim();
    return trimmed ? { ...ref, reason: trimmed } : ref;
  }),
  /** The service allows shortlisted (from pending) and back to pending (from shortlisted). */
  'recruiter:applications:setStatus': args({ jobId: id, applicationId: id, status: oneOf(['shortlisted', 'pending']) }),
  'recruiter:applications:approveWork': applicationRef,
  'recruiter:champs:search': champSearch.nullish().transform((arg) => arg ?? {}),
  'recruiter:champs:get': args({ dataChampId: id }),
  'recruiter:champs:matches': args({ jobId: id, limit: integer(1, 50).optional() }),
} as const satisfies { [C in keyof RecruiterResults]: z.ZodType };

export interface RecruiterResults {
  'recruiter:connection:get': RecruiterConnectionInfo | null;
  /** Checks the key with GET /me; stores it only when accepted. */
  'recruiter:connect': RecruiterConnectionInfo;
  'recruiter:forget': null;
  'recruiter:jobs:list': JobsPage;
  'recruiter:jobs:get': JobDetail;
  'recruiter:jobs:create': Job;
  'recruiter:jobs:update': Job;
  'recruiter:jobs:publish': Job;
  'recruiter:jobs:pause': Job;
  'recruiter:jobs:resume': Job;
  'recruiter:jobs:close': Job;
  'recruiter:applications:list': Application[];
  'recruiter:applications:get': Application;
  'recruiter:applications:accept': Application;
  'recruiter:applications:reject': Application;
  'recruiter:applications:setStatus': Application;
  'recruiter:applications:approveWork': Application;
  'recruiter:champs:search': DataChampsPage;
  'recruiter:champs:get': DataChamp;
  'recruiter:champs:matches': Match[];
}

type Schemas = typeof recruiterArgSchemas;
export type RecruiterInvokeChannels = { [C in keyof RecruiterResults]: { arg: z.input<Schemas[C]>; result: RecruiterResults[C] } };
export type RecruiterArgs = { [C in keyof RecruiterResults]: z.output<Schemas[C]> };
export type RecruiterInvokeChannel = keyof RecruiterInvokeChannels;

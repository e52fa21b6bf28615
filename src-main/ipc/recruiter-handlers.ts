// One validated async function per recruiter channel, answering IpcResult values like the
// core handlers (handlers.ts): arguments are checked first, failures become IpcErrors through
// toIpcError (422 field errors pass through as fieldErrors), and every message is redacted of
// both the recruiter and the delivery keys. No Electron import: the same handlers back the app
// and the browser test bridge.
import { isApiError } from '../api/errors';
import type { DataChampSearchFilters } from '../../src-shared/recruiter-api';
import type { SecretStore } from '../secrets/secret-store';
import type { SettingsStore } from '../settings/settings-store';
import type { IpcError, IpcResult } from './contract';
import { RecruiterConnection, type RecruiterCredentials } from './recruiter-connection';
import type { ChampSearchArg, RecruiterInvokeChannel, RecruiterInvokeChannels } from './recruiter-contract';
import { recruiterValidators } from './recruiter-validate';
import { toIpcError } from './to-ipc-error';
import type { RecruiterClient } from '../api/recruiter-client';

export interface RecruiterHandlerDeps {
  secrets: SecretStore;
  settings: SettingsStore;
  secretStoreWarning?: string;
  /** Other secrets to scrub from messages (the delivery key). */
  otherSecretsToRedact?: () => readonly string[];
  /** Shared when the caller needs to close it on quit; created here when absent. */
  recruiter?: RecruiterConnection;
  createClient?: (credentials: RecruiterCredentials) => RecruiterClient;
  log?: (message: string, error: unknown) => void;
}

export type RecruiterHandlers = {
  [C in RecruiterInvokeChannel]: (arg: unknown) => Promise<IpcResult<RecruiterInvokeChannels[C]['result']>>;
};

type Impl = { [C in RecruiterInvokeChannel]: (arg: RecruiterInvokeChannels[C]['arg']) => Promise<RecruiterInvokeChannels[C]['result']> };

/** The scope each call needs (spec: Endpoints) and what it does, for a forbidden message people can act on. */
const NEEDS: { [C in RecruiterInvokeChannel]?: { scope: string; action: string } } = {
  'recruiter:jobs:list': { scope: 'jobs:read', action: 'list jobs' },
  'recruiter:jobs:get': { scope: 'jobs:read', action: 'open this job' },
  'recruiter:jobs:create': { scope: 'jobs:write', action: 'create jobs' },
  'recruiter:jobs:update': { scope: 'jobs:write', action: 'edit jobs' },
  'recruiter:jobs:publish': { scope: 'jobs:write', action: 'publish jobs' },
  'recruiter:jobs:pause': { scope: 'jobs:write', action: 'pause jobs' },
  'recruiter:jobs:resume': { scope: 'jobs:write', action: 'resume jobs' },
  'recruiter:jobs:close': { scope: 'jobs:write', action: 'close jobs' },
  'recruiter:applications:list': { scope: 'jobs:read', action: 'read applications' },
  'recruiter:applications:get': { scope: 'jobs:read', action: 'read applications' },
  'recruiter:applications:accept': { scope: 'jobs:write', action: 'hire applicants' },
  'recruiter:applications:reject': { scope: 'jobs:write', action: 'reject applicants' },
  'recruiter:applications:setStatus': { scope: 'jobs:write', action: 'change application status' },
  'recruiter:applications:approveWork': { scope: 'jobs:write', action: 'approve work' },
  'recruiter:champs:search': { scope: 'data_champs:read', action: 'search Data Champs' },
  'recruiter:champs:get': { scope: 'data_champs:read', action: 'view Data Champ profiles' },
  'recruiter:champs:matches': { scope: 'data_champs:read', action: 'see recommended matches' },
};

const SCOPE_IN_MESSAGE = /\b(jobs:read|jobs:write|data_champs:read)\b/;

/**
 * A 403 means a missing scope or another organization's resource. The scope is named when it
 * is known to be missing (from /me, or from the service's own message); otherwise the
 * service's detail follows.
 */
function forbiddenMessage(channel: RecruiterInvokeChannel, serviceMessage: string, scopes: string[] | null): string {
  const need = NEEDS[channel];
  const named = SCOPE_IN_MESSAGE.exec(serviceMessage)?.[1];
  const missing = need && scopes && !scopes.includes(need.scope) ? need.scope : named;
  if (missing) {
    const what = need ? ` to ${need.action}` : '';
    return `This recruiter API key lacks the ${missing} scope needed${what}. Ask the operator for a key with ${missing}, or use one that has it. (${serviceMessage})`;
  }
  return `Access denied: the resource belongs to another organization, or the key may not do this. (${serviceMessage})`;
}

function toSearchFilters(arg: ChampSearchArg): DataChampSearchFilters {
  const filters: DataChampSearchFilters = {};
  if (arg.skills && arg.skills.length > 0) filters.skills = arg.skills;
  if (arg.location) filters.location = arg.location;
  if (arg.country) filters.country = arg.country;
  if (arg.availability) filters.availability = arg.availability;
  if (arg.minRate !== undefined) filters.min_rate = arg.minRate;
  if (arg.maxRate !== undefined) filters.max_rate = arg.maxRate;
  if (arg.verifiedOnly) filters.verified_only = true;
  if (arg.search) filters.search = arg.search;
  if (arg.page !== undefined) filters.page = arg.page;
  if (arg.perPage !== undefined) filters.per_page = arg.perPage;
  return filters;
}

export function createRecruiterHandlers(deps: RecruiterHandlerDeps): RecruiterHandlers {
  const recruiter =
    deps.recruiter ??
    new RecruiterConnection({
      secrets: deps.secrets,
      settings: deps.settings,
      ...(deps.secretStoreWarning ? { secretStoreWarning: deps.secretStoreWarning } : {}),
      ...(deps.createClient ? { createClient: deps.createClient } : {}),
    });
  const client = () => recruiter.recruiterClient();

  const impl: Impl = {
    'recruiter:connection:get': () => recruiter.info(),
    'recruiter:connect': ({ baseUrl, apiKey }) => recruiter.connect(baseUrl, apiKey),
    'recruiter:forget': async () => {
      await recruiter.forget();
      return null;
    },
    'recruiter:jobs:list': async ({ page, perPage, status }) =>
      (await client()).listJobs({
        ...(page === undefined ? {} : { page }),
        ...(perPage === undefined ? {} : { per_page: perPage }),
        ...(status === undefined ? {} : { status }),
      }),
    'recruiter:jobs:get': async ({ jobId }) => (await client()).getJob(jobId),
    'recruiter:jobs:create': async ({ job }) => (await client()).createJob(job),
    'recruiter:jobs:update': async ({ jobId, changes }) => (await client()).updateJob(jobId, changes),
    'recruiter:jobs:publish': async ({ jobId }) => (await client()).publishJob(jobId),
    'recruiter:jobs:pause': async ({ jobId }) => (await client()).pauseJob(jobId),
    'recruiter:jobs:resume': async ({ jobId }) => (await client()).resumeJob(jobId),
    'recruiter:jobs:close': async ({ jobId }) => (await client()).closeJob(jobId),
    'recruiter:applications:list': async ({ jobId, status }) => (await client()).listApplications(jobId, status === undefined ? {} : { status }),
    'recruiter:applications:get': async ({ jobId, applicationId }) => (await client()).getApplication(jobId, applicationId),
    'recruiter:applications:accept': async ({ jobId, applicationId }) => (await client()).acceptApplication(jobId, applicationId),
    'recruiter:applications:reject': async ({ jobId, applicationId, reason }) => (await client()).rejectApplication(jobId, applicationId, reason),
    'recruiter:applications:setStatus': async ({ jobId, applicationId, status }) => (await client()).updateApplicationStatus(jobId, applicationId, status),
    'recruiter:applications:approveWork': async ({ jobId, applicationId }) => (await client()).approveWork(jobId, applicationId),
    'recruiter:champs:search': async (arg) => (await client()).searchDataChamps(toSearchFilters(arg)),
    'recruiter:champs:get': async ({ dataChampId }) => (await client()).getDataChamp(dataChampId),
    'recruiter:champs:matches': async ({ jobId, limit }) => (await client()).getMatches(jobId, limit === undefined ? {} : { limit }),
  };

  const redactList = () => [...recruiter.secretsToRedact(), ...(deps.otherSecretsToRedact?.() ?? [])];

  const toError = (channel: RecruiterInvokeChannel, e: unknown): IpcError => {
    const error = toIpcError(e, redactList(), deps.log);
    if (isApiError(e) && e.kind === 'forbidden') {
      // Built from already-redacted text only.
      error.message = forbiddenMessage(channel, error.message, recruiter.knownScopes());
    }
    return error;
  };

  const wrap = <C extends RecruiterInvokeChannel>(channel: C) => {
    const validate = recruiterValidators[channel] as (arg: unknown) => RecruiterInvokeChannels[C]['arg'];
    const run = impl[channel] as (arg: RecruiterInvokeChannels[C]['arg']) => Promise<RecruiterInvokeChannels[C]['result']>;
    return async (arg: unknown): Promise<IpcResult<RecruiterInvokeChannels[C]['result']>> => {
      try {
        return { ok: true, value: await run(validate(arg)) };
      } catch (e) {
        return { ok: false, error: toError(channel, e) };
      }
    };
  };

  const handlers = {} as Record<RecruiterInvokeChannel, (arg: unknown) => Promise<IpcResult<unknown>>>;
  for (const channel of Object.keys(impl) as RecruiterInvokeChannel[]) handlers[channel] = wrap(channel);
  return handlers as RecruiterHandlers;
}

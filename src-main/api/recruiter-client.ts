// Typed client of the recruiter API (../shared/spec/recruiter-api.md) over undici. Every
// answer is checked by the validators in recruiter-types.ts before a caller sees it; every
// failure is one ApiError. The API key is sent only in the Authorization header and never
// appears in an error message (server messages are scrubbed of it too).
import { Agent, errors as undiciErrors, request, type Dispatcher } from 'undici';
import { validateBaseUrl } from './base-url';
import { ApiError, type ApiErrorKind } from './errors';
import {
  MalformedAnswer, parseApplication, parseApplications, parseDataChamp, parseDataChampsPage, parseJob, parseJobDetail,
  parseJobsPage, parseMatches, parseMe,
  type Application, type DataChamp, type DataChampSearchFilters, type DataChampsPage, type Job, type JobDetail,
  type JobInput, type JobListOptions, type JobsPage, type JobUpdate, type Match, type RecruiterMe,
} from './recruiter-types';

export type RecruiterId = number | string;

export interface RecruiterClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Give up on a request whose headers or body stall this long (default 30 s). */
  timeoutMs?: number;
  /** Use this dispatcher instead of a private one (it is then not closed by close()). */
  dispatcher?: Dispatcher;
}

export interface RecruiterClient {
  readonly baseUrl: string;
  me(): Promise<RecruiterMe>;
  listJobs(opts?: JobListOptions): Promise<JobsPage>;
  createJob(input: JobInput): Promise<Job>;
  getJob(jobId: RecruiterId): Promise<JobDetail>;
  updateJob(jobId: RecruiterId, changes: JobUpdate): Promise<Job>;
  publishJob(jobId: RecruiterId): Promise<Job>;
  pauseJob(jobId: RecruiterId): Promise<Job>;
  resumeJob(jobId: RecruiterId): Promise<Job>;
  closeJob(jobId: RecruiterId): Promise<Job>;
  listApplications(jobId: RecruiterId, opts?: { status?: string }): Promise<Application[]>;
  getApplication(jobId: RecruiterId, applicationId: RecruiterId): Promise<Application>;
  acceptApplication(jobId: RecruiterId, applicationId: RecruiterId): Promise<Application>;
  rejectApplication(jobId: RecruiterId, applicationId: RecruiterId, reason?: string): Promise<Application>;
  /** PATCH: the service lets this set `shortlisted` (from pending) or `pending` (from shortlisted). */
  updateApplicationStatus(jobId: RecruiterId, applicationId: RecruiterId, status: 'shortlisted' | 'pending' | (string & {})): Promise<Application>;
  approveWork(jobId: RecruiterId, applicationId: RecruiterId): Promise<Application>;
  searchDataChamps(filters?: DataChampSearchFilters): Promise<DataChampsPage>;
  getDataChamp(dataChampId: RecruiterId): Promise<DataChamp>;
  getMatches(jobId: RecruiterId, opts?: { limit?: number }): Promise<Match[]>;
  close(): Promise<void>;
}

const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** 422 `errors` as an object of arrays or strings, an array of {field, message(s)}, a list or a string. */
export function parseFieldErrors(raw: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const add = (field: string, message: unknown) => {
    const texts = Array.isArray(message) ? message : [message];
    for (const m of texts) {
      const text = typeof m === 'string' ? m : typeof m === 'object' && m !== null && 'message' in m ? String((m as { message: unknown }).message) : JSON.stringify(m);
      (out[field] ??= []).push(text);
    }
  };
  if (typeof raw === 'string') add('base', raw);
  else if (Array.isArray(raw)) {
    for (const item of raw) {
      if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
        const rec = item as Record<string, unknown>;
        const field = typeof rec.field === 'string' ? rec.field : typeof rec.param === 'string' ? rec.param : 'base';
        add(field, rec.messages ?? rec.message ?? rec.error ?? 'is invalid');
      } else add('base', item);
    }
  } else if (typeof raw === 'object' && raw !== null) {
    for (const [field, messages] of Object.entries(raw)) add(field, messages);
  }
  return out;
}

function kindOfStatus(status: number): ApiErrorKind {
  if (status === 401) return 'auth';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 416) return 'range';
  if (status === 422) return 'validation';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server';
  if (status >= 400) return 'bad_request';
  return 'malformed'; // 1xx/3xx are not part of this API
}

function retryAfterSeconds(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

export function createRecruiterClient(opts: RecruiterClientOptions): RecruiterClient {
  const baseUrl = validateBaseUrl(opts.baseUrl);
  const apiKey = opts.apiKey.trim();
  if (apiKey === '') throw new ApiError('auth', 'No recruiter API key is configured.');
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const ownDispatcher = opts.dispatcher ? null : new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs });
  const dispatcher = opts.dispatcher ?? (ownDispatcher as Agent);

  const scrub = (text: string): string => text.split(apiKey).join('[redacted]').slice(0, 300);

  /** Sends one request; returns the parsed JSON body (undefined when the answer is empty). */
  async function call(method: Dispatcher.HttpMethod, path: string, body?: unknown, query?: URLSearchParams): Promise<unknown> {
    const what = `${method} ${path}`;
    const qs = query && [...query.keys()].length > 0 ? `?${query.toString()}` : '';
    let res: Dispatcher.ResponseData;
    try {
      res = await request(`${baseUrl}${path}${qs}`, {
        method,
        dispatcher,
        headers: {
          authorization: `Bearer ${apiKey}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (err) {
      throw networkError(what, err);
    }
    let text: string;
    try {
      text = await readCapped(res.body);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw networkError(what, err);
    }
    let parsed: unknown;
    let parseFailed = false;
    if (text.trim() !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parseFailed = true;
      }
    }
    if (res.statusCode >= 200 && res.statusCode < 300) {
      if (parseFailed) throw new ApiError('malformed', `Recruiter API: ${what} answered ${res.statusCode} with a body that is not JSON.`, { status: res.statusCode });
      return parsed;
    }
    throw statusError(what, res.statusCode, parsed, res.headers['retry-after']);
  }

  function statusError(what: string, status: number, parsed: unknown, retryAfter: string | string[] | undefined): ApiError {
    const kind = kindOfStatus(status);
    const record = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    const serverMessage = typeof record.error === 'string' ? record.error : typeof record.message === 'string' ? record.message : '';
    const fieldErrors = kind === 'validation' ? parseFieldErrors(record.errors) : undefined;
    const details = fieldErrors && Object.keys(fieldErrors).length > 0
      ? `: ${Object.entries(fieldErrors).map(([f, m]) => `${f} ${m.join('; ')}`).join(', ')}`
      : serverMessage ? `: ${serverMessage}` : '';
    const lead = {
      auth: 'the API key was refused (missing, unknown or revoked)',
      forbidden: 'access denied (the key lacks the scope, or the resource belongs to another organization)',
      not_found: 'not found',
      validation: 'the request was refused',
    }[kind as string];
    const message = scrub(`Recruiter API: ${what} answered ${status}${lead ? ` — ${lead}` : ''}${details}`);
    return new ApiError(kind, message, {
      status,
      fieldErrors: fieldErrors && Object.fromEntries(Object.entries(fieldErrors).map(([f, m]) => [f, m.map(scrub)])),
      retryAfterSeconds: retryAfterSeconds(retryAfter),
    });
  }

  function networkError(what: string, err: unknown): ApiError {
    if (err instanceof undiciErrors.RequestAbortedError) return new ApiError('aborted', `Recruiter API: ${what} was cancelled.`, { cause: err });
    const reason = err instanceof Error ? `${(err as { code?: string }).code ?? err.name}: ${err.message}` : String(err);
    return new ApiError('network', scrub(`Recruiter API: ${what} failed before an answer arrived (${reason}).`), { cause: err });
  }

  /** Runs a validator; a contract mismatch becomes ApiError 'malformed'. */
  function validate<T>(what: string, parse: () => T): T {
    try {
      return parse();
    } catch (err) {
      if (err instanceof MalformedAnswer) throw new ApiError('malformed', `Recruiter API: ${what} gave an unexpected answer: ${scrub(err.message)}.`, { cause: err });
      throw err;
    }
  }

  const seg = (id: RecruiterId): string => encodeURIComponent(String(id));
  const jobPath = (jobId: RecruiterId) => `/jobs/${seg(jobId)}`;
  const appPath = (jobId: RecruiterId, appId: RecruiterId) => `${jobPath(jobId)}/applications/${seg(appId)}`;
  const numericId = (id: RecruiterId): number => (typeof id === 'number' ? id : Number(id));

  async function get<T>(path: string, parse: (body: unknown) => T, query?: URLSearchParams): Promise<T> {
    const body = await call('GET', path, undefined, query);
    return validate(`GET ${path}`, () => parse(body));
  }

  /** A state move or update; an answer without a body (e.g. 204) is followed by a fresh read. */
  async function change<T>(method: Dispatcher.HttpMethod, path: string, body: unknown, parse: (body: unknown) => T, reread: string): Promise<T> {
    const answer = await call(method, path, body);
    if (answer === undefined) return get(reread, parse);
    return validate(`${method} ${path}`, () => parse(answer));
  }

  const jobMove = (jobId: RecruiterId, action: string) => change('POST', `${jobPath(jobId)}/${action}`, undefined, parseJob, jobPath(jobId));
  const appChange = (jobId: RecruiterId, appId: RecruiterId, method: Dispatcher.HttpMethod, suffix: string, body?: unknown) =>
    change(method, `${appPath(jobId, appId)}${suffix}`, body, (b) => parseApplication(b, numericId(jobId)), appPath(jobId, appId));

  return {
    baseUrl,
    me: () => get('/me', parseMe),
    listJobs: (o = {}) => get('/jobs', (b) => parseJobsPage(b, o), toQuery({ ...o })),
    createJob: async (input) => {
      const answer = await call('POST', '/jobs', input);
      return validate('POST /jobs', () => parseJob(answer));
    },
    getJob: (jobId) => get(jobPath(jobId), parseJobDetail),
    updateJob: (jobId, changes) => change('PUT', jobPath(jobId), changes, parseJob, jobPath(jobId)),
    publishJob: (jobId) => jobMove(jobId, 'publish'),
    pauseJob: (jobId) => jobMove(jobId, 'pause'),
    resumeJob: (jobId) => jobMove(jobId, 'resume'),
    closeJob: (jobId) => jobMove(jobId, 'close'),
    listApplications: (jobId, o = {}) => get(`${jobPath(jobId)}/applications`, (b) => parseApplications(b, numericId(jobId)), toQuery({ ...o })),
    getApplication: (jobId, appId) => get(appPath(jobId, appId), (b) => parseApplication(b, numericId(jobId))),
    acceptApplication: (jobId, appId) => appChange(jobId, appId, 'POST', '/accept'),
    rejectApplication: (jobId, appId, reason) => appChange(jobId, appId, 'POST', '/reject', reason === undefined ? undefined : { reason }),
    updateApplicationStatus: (jobId, appId, status) => appChange(jobId, appId, 'PATCH', '', { status }),
    approveWork: (jobId, appId) => appChange(jobId, appId, 'POST', '/approve-work'),
    searchDataChamps: (filters = {}) =>
      get('/data-champs', (b) => parseDataChampsPage(b, filters), toQuery({ ...filters, skills: Array.isArray(filters.skills) ? filters.skills.join(',') : filters.skills })),
    getDataChamp: (id) => get(`/data-champs/${seg(id)}`, parseDataChamp),
    getMatches: (jobId, o = {}) => get(`${jobPath(jobId)}/data-champs/matches`, parseMatches, toQuery({ ...o })),
    close: async () => {
      await ownDispatcher?.close();
    },
  };
}

function toQuery(params: Record<string, string | number | boolean | undefined>): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') query.set(name, String(value));
  }
  return query;
}

async function readCapped(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_ANSWER_BYTES) {
      body.destroy();
      throw new ApiError('malformed', `Recruiter API: an answer was larger than ${MAX_ANSWER_BYTES} bytes.`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

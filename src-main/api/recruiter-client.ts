// Typed client of the recruiter API (as docs/contracts.md §6 records it) over undici. Requests,
// status mapping, bounds and redaction are the shared boundary's (http.ts); every answer is
// checked against its schema (src-shared/recruiter-api.ts) before a caller sees it; every
// failure is one ApiError. The API key is sent only in the Authorization header and never
// appears in an error message or a returned record.
import type { Dispatcher } from 'undici';
import { createDispatcher } from './dispatcher';
import type { z } from 'zod';
import {
  ApplicationAnswerSchema, ApplicationsAnswerSchema, DataChampAnswerSchema, DataChampsAnswerSchema, JobAnswerSchema,
  JobDetailAnswerSchema, JobsAnswerSchema, MatchesAnswerSchema, RecruiterMeSchema,
  type Application, type DataChamp, type DataChampSearchFilters, type DataChampsPage, type Job, type JobDetail,
  type JobInput, type JobListOptions, type JobsPage, type JobUpdate, type Match, type Page, type RecruiterMe,
} from '../../src-shared/recruiter-api';
import { validateBaseUrl } from './base-url';
import { ApiError } from './errors';
import { createHttpEndpoint } from './http';

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

/** Page fields the answer left out, derived from what was asked and how many items came. */
function pageOf(fields: Partial<Page>, count: number, asked: { page?: number; per_page?: number }): Page {
  const page = fields.page ?? asked.page ?? 1;
  const perPage = fields.per_page ?? asked.per_page ?? Math.max(count, 1);
  const total = fields.total ?? (page - 1) * perPage + count;
  return { page, per_page: perPage, total, has_more: fields.has_more ?? page * perPage < total };
}

export function createRecruiterClient(opts: RecruiterClientOptions): RecruiterClient {
  const baseUrl = validateBaseUrl(opts.baseUrl);
  const apiKey = opts.apiKey.trim();
  if (apiKey === '') throw new ApiError('auth', 'No recruiter API key is configured.');
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const ownDispatcher = opts.dispatcher ? null : createDispatcher({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs });
  const http = createHttpEndpoint({
    dispatcher: opts.dispatcher ?? (ownDispatcher as Dispatcher),
    baseUrl,
    apiKey,
    messagePrefix: 'Recruiter API: ',
    headersTimeoutMs: timeoutMs,
    bodyTimeoutMs: timeoutMs,
  });

  /** Sends one request; returns the parsed JSON body (undefined when the answer is empty). */
  function call(method: Dispatcher.HttpMethod, path: string, body?: unknown, query?: URLSearchParams): Promise<unknown> {
    const qs = query && [...query.keys()].length > 0 ? `?${query.toString()}` : '';
    return http.requestJson({ method, path: `${http.basePath}${path}${qs}`, body });
  }

  /** Checks an answer; a contract mismatch becomes ApiError 'malformed' naming the field below `root`. */
  const parse = <S extends z.ZodType>(schema: S, body: unknown, method: string, path: string, root = ''): z.output<S> =>
    http.parse(schema, body, http.labelOf(method, `${http.basePath}${path}`), root);

  async function get<S extends z.ZodType>(path: string, schema: S, root = '', query?: URLSearchParams): Promise<z.output<S>> {
    return parse(schema, await call('GET', path, undefined, query), 'GET', path, root);
  }

  /** A state move or update; an answer without a body (e.g. 204) is followed by a fresh read. */
  async function change<S extends z.ZodType>(method: Dispatcher.HttpMethod, path: string, body: unknown, schema: S, root: string, reread: string): Promise<z.output<S>> {
    const answer = await call(method, path, body);
    if (answer === undefined) return get(reread, schema, root);
    return parse(schema, answer, method, path, root);
  }

  const seg = (id: RecruiterId): string => encodeURIComponent(String(id));
  const jobPath = (jobId: RecruiterId) => `/jobs/${seg(jobId)}`;
  const appPath = (jobId: RecruiterId, appId: RecruiterId) => `${jobPath(jobId)}/applications/${seg(appId)}`;
  /** job_id is implied by the URL when an application record leaves it out. */
  const ofJob = (jobId: RecruiterId) => (a: z.output<typeof ApplicationAnswerSchema>): Application => ({
    ...a,
    job_id: a.job_id ?? (typeof jobId === 'number' ? jobId : Number(jobId)),
  });

  const jobMove = (jobId: RecruiterId, action: string) => change('POST', `${jobPath(jobId)}/${action}`, undefined, JobAnswerSchema, 'job', jobPath(jobId));
  const appChange = async (jobId: RecruiterId, appId: RecruiterId, method: Dispatcher.HttpMethod, suffix: string, body?: unknown) =>
    ofJob(jobId)(await change(method, `${appPath(jobId, appId)}${suffix}`, body, ApplicationAnswerSchema, 'application', appPath(jobId, appId)));

  return {
    baseUrl,
    me: () => get('/me', RecruiterMeSchema),
    listJobs: async (o = {}) => {
      const { jobs, ...fields } = await get('/jobs', JobsAnswerSchema, '', toQuery({ ...o }));
      return { jobs, ...pageOf(fields, jobs.length, o) };
    },
    createJob: async (input) => parse(JobAnswerSchema, await call('POST', '/jobs', input), 'POST', '/jobs', 'job'),
    getJob: (jobId) => get(jobPath(jobId), JobDetailAnswerSchema, 'job'),
    updateJob: (jobId, changes) => change('PUT', jobPath(jobId), changes, JobAnswerSchema, 'job', jobPath(jobId)),
    publishJob: (jobId) => jobMove(jobId, 'publish'),
    pauseJob: (jobId) => jobMove(jobId, 'pause'),
    resumeJob: (jobId) => jobMove(jobId, 'resume'),
    closeJob: (jobId) => jobMove(jobId, 'close'),
    listApplications: async (jobId, o = {}) =>
      (await get(`${jobPath(jobId)}/applications`, ApplicationsAnswerSchema, '', toQuery({ ...o }))).applications.map(ofJob(jobId)),
    getApplication: async (jobId, appId) => ofJob(jobId)(await get(appPath(jobId, appId), ApplicationAnswerSchema, 'application')),
    acceptApplication: (jobId, appId) => appChange(jobId, appId, 'POST', '/accept'),
    rejectApplication: (jobId, appId, reason) => appChange(jobId, appId, 'POST', '/reject', reason === undefined ? undefined : { reason }),
    updateApplicationStatus: (jobId, appId, status) => appChange(jobId, appId, 'PATCH', '', { status }),
    approveWork: (jobId, appId) => appChange(jobId, appId, 'POST', '/approve-work'),
    searchDataChamps: async (filters = {}) => {
      const query = toQuery({ ...filters, skills: Array.isArray(filters.skills) ? filters.skills.join(',') : filters.skills });
      const { data_champs, ...fields } = await get('/data-champs', DataChampsAnswerSchema, '', query);
      return { data_champs, ...pageOf(fields, data_champs.length, filters) };
    },
    getDataChamp: (id) => get(`/data-champs/${seg(id)}`, DataChampAnswerSchema, 'data_champ'),
    getMatches: async (jobId, o = {}) => (await get(`${jobPath(jobId)}/data-champs/matches`, MatchesAnswerSchema, '', toQuery({ ...o }))).matches,
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

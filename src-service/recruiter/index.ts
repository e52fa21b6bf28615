// Reference implementation of the recruiter API (spec: recruiter-api.md), mounted by the main
// service under /api/v1/recruiter. In-memory, deterministic demo data from the seed.
//
// Choices on the points the spec leaves open ("not shown"):
// - Auth: `Authorization: Bearer <key>`. 401 for a missing/unknown key, checked before anything
//   else (also before 404), with `WWW-Authenticate: Bearer`. Then the route is matched (404 for an
//   unknown path, 405 with `Allow` for a known path with another method), then the scope (403).
// - Error bodies: 401/403/404/405/400/413 -> {"error": "<message>"}; 422 ->
//   {"error": "validation failed", "errors": {"<field>": ["message", ...]}}. Illegal state moves
//   are 422 with `errors.state`. A body that is not JSON is 400; over 1 MiB is 413.
// - GET /me: any valid key, whatever its scopes. Returns
//   {organization: {id, name, created_at}, key: {name, prefix, scopes}} (prefix = first 12 chars).
// - Another organization's job, or an application under it: 403 (existence is not hidden).
//   A job or application id that does not exist: 404. An application under another job: 404.
// - Job create: required title, description, job_type, location_type, rate, rate_type, currency,
//   number_of_positions; optional required_skills (default []). Unknown fields are ignored.
//   title non-empty <= 200 chars; description non-empty <= 10000; job_type from the spec list;
//   location_type on_site | remote | hybrid; rate_type daily | hourly | fixed; rate a decimal
//   string > 0 with at most 2 decimals (answered normalised to 2 decimals, e.g. "150.00");
//   currency 3 letters (answered upper-case); number_of_positions integer 1..1000;
//   required_skills array of identifiers [a-z0-9_-] (lower-cased, de-duplicated).
// - Job states: draft -> (publish) active -> (pause) paused -> (resume) active; close from
//   draft/active/paused -> closed, permanent. Every other move is 422 errors.state.
// - PUT /jobs/:id is a partial update (fields left out keep their value; at least one known field),
//   allowed in draft, active and paused, refused (422 errors.state) once closed.
// - Responses: {job}, {jobs, page, per_page, total, has_more} (GET /jobs takes page, per_page and
//   status), GET /jobs/:id -> {job: {..., applications: [...]}}, {applications: [...]} (optional
//   status filter, not paginated), {application}, {data_champs, page, per_page, total, has_more},
//   {data_champ}, {job_id, matches: [{data_champ, score, reasons}]}. Create answers 201, others 200.
// - Application statuses: pending, shortlisted, hired, rejected, work_submitted, work_approved.
//   PATCH {"status": "shortlisted"} from pending, {"status": "pending"} from shortlisted (nothing
//   else: 422 errors.status). accept: pending|shortlisted -> hired while a position is free.
//   reject with optional body {"reason": "..."}: pending|shortlisted|hired -> rejected.
//   approve-work: work_submitted -> work_approved. Nothing changes on a closed job (422 errors.state).
// - Data Champ search: skills comma-separated, ALL must be held (case-insensitive); location equals
//   city or region, country equals country (both case-insensitive); availability one of available,
//   busy, unavailable; min_rate/max_rate non-negative numbers on the daily rate (min > max is 422);
//   verified_only true/false/1/0; search = case-insensitive name substring. Ordered by id.
// - Pagination (jobs and Data Champs): page >= 1 (default 1), per_page 1..100 (default 25);
//   per_page > 100 is refused with 422 rather than clamped, so a client never silently gets less
//   than it asked for. A page beyond the last is an empty list with has_more false.
// - Profiles are public fields only: no email, no phone.
// - Matches: score 0..100 = skill overlap (up to 50) + daily rate within the job's rate (20; an
//   hourly rate counts as 8 hours a day, a fixed price as the daily budget) + availability
//   (available 20, busy 8) + verified (10). With required skills only Data Champs holding one of
//   them appear; applicants to the job are left out. `limit` 1..50, default 10.
import type { IncomingMessage } from 'node:http';
import { authenticate, requireScope } from './auth';
import { errorAnswer, HttpError, notFound, type JsonAnswer } from './http';
import { createDemoStore } from './demo-data';
import { matchRoute } from './router';
import type { RecruiterStore } from './store';

export interface RecruiterOrganization {
  name: string;
  apiKey: string;
  scopes: string[];
}

export interface RecruiterApi {
  organizations: RecruiterOrganization[];
  /**
   * `path` is the request path below /api/v1/recruiter (e.g. "/jobs/3"), `url` the whole parsed URL.
   * Returns the answer instead of writing it, so the service's faults can shape it on the wire.
   */
  handle(req: IncomingMessage, path: string, url: URL): Promise<JsonAnswer>;
}

export interface RecruiterApiOptions {
  seed: number;
  /** How many Data Champs the demo data holds (default 200). */
  dataChampCount?: number;
  /** The clock for created_at/updated_at of changes (default: the system clock). */
  now?: () => Date;
}

export function createRecruiterApi(opts: RecruiterApiOptions): RecruiterApi {
  const store = createDemoStore(opts);
  return {
    organizations: store.organizations.map((o) => ({ name: o.name, apiKey: o.apiKey, scopes: [...o.scopes] })),
    handle: (req, path, url) => handleRequest(store, req, path, url),
  };
}

async function handleRequest(store: RecruiterStore, req: IncomingMessage, path: string, url: URL): Promise<JsonAnswer> {
  try {
    const org = authenticate(store, req);
    const method = (req.method ?? 'GET').toUpperCase();
    const match = matchRoute(method, path === '' ? '/' : path);
    if (match.kind === 'none') throw notFound(`no recruiter endpoint ${method} ${path}`);
    if (match.kind === 'wrong_method') {
      throw new HttpError(405, `method ${method} is not allowed here`, undefined, { allow: match.allowed.join(', ') });
    }
    if (match.route.scope) requireScope(org, match.route.scope);
    const reply = await match.route.handler({ store, org, req, url }, match.params);
    return { status: reply.status, headers: {}, body: reply.body };
  } catch (err) {
    if (err instanceof HttpError) return errorAnswer(err);
    // Internal detail stays in the service log, never in the answer.
    console.error('recruiter API: unexpected error', err);
    return { status: 500, headers: {}, body: { error: 'internal error' } };
  }
}

// Route table of the recruiter API: path pattern, method, required scope (null: any valid key).
import type { Reply, RequestContext } from './context';
import type { Scope } from './store';
import { createJob, getJob, listJobs, moveJob, updateJob } from './jobs';
import {
  acceptApplication, approveWork, getApplication, listApplications, rejectApplication, updateApplicationStatus,
} from './applications';
import { getDataChamp, getMatches, searchDataChamps } from './data-champs';
import { meView } from './views';

type Handler = (ctx: RequestContext, params: string[]) => Reply | Promise<Reply>;

interface Route {
  method: string;
  pattern: RegExp;
  scope: Scope | null;
  handler: Handler;
}

const SEG = '([^/]+)';
const route = (method: string, path: string, scope: Scope | null, handler: Handler): Route => ({
  method,
  pattern: new RegExp(`^${path.replaceAll(':id', SEG)}/?$`),
  scope,
  handler,
});
const at = (params: string[], i: number): string => params[i] ?? '';

export const ROUTES: Route[] = [
  route('GET', '/me', null, (ctx) => ({ status: 200, body: meView(ctx.org) })),
  route('GET', '/jobs', 'jobs:read', (ctx) => listJobs(ctx)),
  route('POST', '/jobs', 'jobs:write', (ctx) => createJob(ctx)),
  route('GET', '/jobs/:id', 'jobs:read', (ctx, p) => getJob(ctx, at(p, 0))),
  route('PUT', '/jobs/:id', 'jobs:write', (ctx, p) => updateJob(ctx, at(p, 0))),
  route('POST', '/jobs/:id/publish', 'jobs:write', (ctx, p) => moveJob(ctx, at(p, 0), 'publish')),
  route('POST', '/jobs/:id/pause', 'jobs:write', (ctx, p) => moveJob(ctx, at(p, 0), 'pause')),
  route('POST', '/jobs/:id/resume', 'jobs:write', (ctx, p) => moveJob(ctx, at(p, 0), 'resume')),
  route('POST', '/jobs/:id/close', 'jobs:write', (ctx, p) => moveJob(ctx, at(p, 0), 'close')),
  route('GET', '/jobs/:id/applications', 'jobs:read', (ctx, p) => listApplications(ctx, at(p, 0))),
  route('GET', '/jobs/:id/applications/:id', 'jobs:read', (ctx, p) => getApplication(ctx, at(p, 0), at(p, 1))),
  route('PATCH', '/jobs/:id/applications/:id', 'jobs:write', (ctx, p) => updateApplicationStatus(ctx, at(p, 0), at(p, 1))),
  route('POST', '/jobs/:id/applications/:id/accept', 'jobs:write', (ctx, p) => acceptApplication(ctx, at(p, 0), at(p, 1))),
  route('POST', '/jobs/:id/applications/:id/reject', 'jobs:write', (ctx, p) => rejectApplication(ctx, at(p, 0), at(p, 1))),
  route('POST', '/jobs/:id/applications/:id/approve-work', 'jobs:write', (ctx, p) => approveWork(ctx, at(p, 0), at(p, 1))),
  route('GET', '/data-champs', 'data_champs:read', (ctx) => searchDataChamps(ctx)),
  route('GET', '/data-champs/:id', 'data_champs:read', (ctx, p) => getDataChamp(ctx, at(p, 0))),
  route('GET', '/jobs/:id/data-champs/matches', 'data_champs:read', (ctx, p) => getMatches(ctx, at(p, 0))),
];

/** A malformed %-escape cannot name a resource: keep it raw, so the id check answers 404. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: string[] }
  | { kind: 'wrong_method'; allowed: string[] }
  | { kind: 'none' };

export function matchRoute(method: string, path: string): RouteMatch {
  const allowed: string[] = [];
  for (const r of ROUTES) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    const params = m.slice(1).map(safeDecode);
    if (r.method === method || (method === 'HEAD' && r.method === 'GET')) return { kind: 'found', route: r, params };
    allowed.push(r.method);
  }
  return allowed.length > 0 ? { kind: 'wrong_method', allowed } : { kind: 'none' };
}

// Job endpoints and the job state machine:
//   draft --publish--> active --pause--> paused --resume--> active
//   draft | active | paused --close--> closed (permanent: no further move or update)
import { readJsonBody, illegalMove, validationFailed, type FieldErrors } from './http';
import { created, loadOwnJob, ok, type Reply, type RequestContext } from './context';
import type { Job, JobStatus } from './store';
import { applicationsOfJob } from './store';
import { paginate, parseJobBody, parsePaging, type JobFields } from './validation';
import { applicationView, jobView } from './views';

const JOB_STATUSES: JobStatus[] = ['draft', 'active', 'paused', 'closed'];

export function listJobs(ctx: RequestContext): Reply {
  const errors: FieldErrors = {};
  const paging = parsePaging(ctx.url.searchParams, errors);
  const status = ctx.url.searchParams.get('status');
  if (status !== null && !JOB_STATUSES.includes(status as JobStatus)) errors.status = [`must be one of: ${JOB_STATUSES.join(', ')}`];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const jobs = [...ctx.store.jobs.values()]
    .filter((j) => j.organizationId === ctx.org.id && (status === null || j.status === status))
    .sort((a, b) => a.id - b.id);
  const { items, ...meta } = paginate(jobs, paging);
  return ok({ jobs: items.map((j) => jobView(ctx.store, j)), ...meta });
}

export async function createJob(ctx: RequestContext): Promise<Reply> {
  const fields = parseJobBody(await readJsonBody(ctx.req), 'create') as JobFields;
  const now = ctx.store.now().toISOString();
  const job: Job = {
    id: ctx.store.nextJobId++,
    organizationId: ctx.org.id,
    ...fields,
    requiredSkills: fields.requiredSkills ?? [],
    status: 'draft',
    createdAt: now,
    updatedAt: now,
    publishedAt: null,
    closedAt: null,
  };
  ctx.store.jobs.set(job.id, job);
  return created({ job: jobView(ctx.store, job) });
}

/** The job with its applications inside the job object. */
export function getJob(ctx: RequestContext, id: string): Reply {
  const job = loadOwnJob(ctx, id);
  const applications = applicationsOfJob(ctx.store, job.id).map((a) => applicationView(ctx.store, a));
  return ok({ job: { ...jobView(ctx.store, job), applications } });
}

/** PUT is a partial update: fields left out keep their value. Refused once the job is closed. */
export async function updateJob(ctx: RequestContext, id: string): Promise<Reply> {
  const job = loadOwnJob(ctx, id);
  const fields = parseJobBody(await readJsonBody(ctx.req), 'update');
  if (job.status === 'closed') throw illegalMove(`job ${job.id} is closed and can no longer be updated`);
  Object.assign(job, fields, { updatedAt: ctx.store.now().toISOString() });
  return ok({ job: jobView(ctx.store, job) });
}

export type JobAction = 'publish' | 'pause' | 'resume' | 'close';

const MOVES: Record<JobAction, { from: JobStatus[]; to: JobStatus; refusal: (s: JobStatus) => string }> = {
  publish: { from: ['draft'], to: 'active', refusal: (s) => `only a draft job can be published; this job is ${s}` },
  pause: { from: ['active'], to: 'paused', refusal: (s) => `only an active job can be paused; this job is ${s}` },
  resume: { from: ['paused'], to: 'active', refusal: (s) => `only a paused job can be resumed; this job is ${s}` },
  close: { from: ['draft', 'active', 'paused'], to: 'closed', refusal: () => 'this job is already closed; closing is permanent' },
};

export function moveJob(ctx: RequestContext, id: string, action: JobAction): Reply {
  const job = loadOwnJob(ctx, id);
  const move = MOVES[action];
  if (!move.from.includes(job.status)) throw illegalMove(move.refusal(job.status));
  const now = ctx.store.now().toISOString();
  job.status = move.to;
  job.updatedAt = now;
  if (action === 'publish') job.publishedAt = now;
  if (action === 'close') job.closedAt = now;
  return ok({ job: jobView(ctx.store, job) });
}

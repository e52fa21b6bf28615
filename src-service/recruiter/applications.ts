// Application endpoints and the application state machine:
//   pending <--PATCH--> shortlisted
//   pending | shortlisted --accept--> hired   (while a position is free)
//   pending | shortlisted | hired --reject(reason?)--> rejected
//   hired --(the Data Champ submits, not via this API)--> work_submitted --approve-work--> work_approved
// Nothing moves on a closed job.
import { illegalMove, isPlainObject, notFound, readJsonBody, validationFailed } from './http';
import { loadOwnJob, ok, parseId, type Reply, type RequestContext } from './context';
import type { Application, ApplicationStatus, Job } from './store';
import { applicationsOfJob } from './store';
import { applicationView, HIRED_STATUSES } from './views';

const STATUSES: ApplicationStatus[] = ['pending', 'shortlisted', 'hired', 'rejected', 'work_submitted', 'work_approved'];
/** The statuses PATCH may set; hiring, rejecting and approving have their own endpoints. */
const PATCHABLE: Partial<Record<ApplicationStatus, ApplicationStatus>> = { shortlisted: 'pending', pending: 'shortlisted' };

function loadApplication(ctx: RequestContext, jobId: string, appId: string): { job: Job; application: Application } {
  const job = loadOwnJob(ctx, jobId);
  const id = parseId(appId, 'application');
  const application = ctx.store.applications.get(id);
  if (!application || application.jobId !== job.id) throw notFound(`application ${id} of job ${job.id} not found`);
  return { job, application };
}

function refuseOnClosedJob(job: Job): void {
  if (job.status === 'closed') throw illegalMove(`job ${job.id} is closed; its applications can no longer change`);
}

function moveTo(ctx: RequestContext, application: Application, status: ApplicationStatus): Reply {
  application.status = status;
  application.updatedAt = ctx.store.now().toISOString();
  return ok({ application: applicationView(ctx.store, application) });
}

export function listApplications(ctx: RequestContext, jobId: string): Reply {
  const job = loadOwnJob(ctx, jobId);
  const status = ctx.url.searchParams.get('status');
  if (status !== null && !STATUSES.includes(status as ApplicationStatus)) {
    throw validationFailed({ status: [`must be one of: ${STATUSES.join(', ')}`] });
  }
  const applications = applicationsOfJob(ctx.store, job.id).filter((a) => status === null || a.status === status);
  return ok({ applications: applications.map((a) => applicationView(ctx.store, a)) });
}

export function getApplication(ctx: RequestContext, jobId: string, appId: string): Reply {
  const { application } = loadApplication(ctx, jobId, appId);
  return ok({ application: applicationView(ctx.store, application) });
}

export function acceptApplication(ctx: RequestContext, jobId: string, appId: string): Reply {
  const { job, application } = loadApplication(ctx, jobId, appId);
  refuseOnClosedJob(job);
  if (application.status !== 'pending' && application.status !== 'shortlisted') {
    throw illegalMove(`only a pending or shortlisted application can be accepted; this one is ${application.status}`);
  }
  const hired = applicationsOfJob(ctx.store, job.id).filter((a) => HIRED_STATUSES.has(a.status)).length;
  if (hired >= job.numberOfPositions) throw illegalMove(`all ${job.numberOfPositions} positions of job ${job.id} are filled`);
  return moveTo(ctx, application, 'hired');
}

/** Body `{"reason": "..."}` is optional; an empty body rejects without a reason. */
export async function rejectApplication(ctx: RequestContext, jobId: string, appId: string): Promise<Reply> {
  const body = await readJsonBody(ctx.req);
  const { job, application } = loadApplication(ctx, jobId, appId);
  let reason: string | null = null;
  if (body !== undefined) {
    if (!isPlainObject(body)) throw validationFailed({ body: ['must be a JSON object'] });
    if (body.reason !== undefined && body.reason !== null) {
      if (typeof body.reason !== 'string' || body.reason.length > 1000) {
        throw validationFailed({ reason: ['must be a string of at most 1000 characters'] });
      }
      reason = body.reason.trim() || null;
    }
  }
  refuseOnClosedJob(job);
  if (!['pending', 'shortlisted', 'hired'].includes(application.status)) {
    throw illegalMove(`only a pending, shortlisted or hired application can be rejected; this one is ${application.status}`);
  }
  application.rejectionReason = reason;
  return moveTo(ctx, application, 'rejected');
}

/** PATCH `{"status": "shortlisted" | "pending"}`: shortlist an application or undo that. */
export async function updateApplicationStatus(ctx: RequestContext, jobId: string, appId: string): Promise<Reply> {
  const body = await readJsonBody(ctx.req);
  const { job, application } = loadApplication(ctx, jobId, appId);
  if (!isPlainObject(body)) throw validationFailed({ body: ['must be a JSON object with a status'] });
  const target = body.status;
  if (typeof target !== 'string' || !(target in PATCHABLE)) {
    throw validationFailed({ status: ['must be "shortlisted" or "pending" (use accept, reject or approve-work for the other moves)'] });
  }
  refuseOnClosedJob(job);
  const from = PATCHABLE[target as ApplicationStatus];
  if (application.status !== from) {
    throw illegalMove(`an application can be set to ${target} only from ${from}; this one is ${application.status}`);
  }
  return moveTo(ctx, application, target as ApplicationStatus);
}

export function approveWork(ctx: RequestContext, jobId: string, appId: string): Reply {
  const { job, application } = loadApplication(ctx, jobId, appId);
  refuseOnClosedJob(job);
  if (application.status !== 'work_submitted') {
    throw illegalMove(`work can be approved only once it was submitted; this application is ${application.status}`);
  }
  return moveTo(ctx, application, 'work_approved');
}

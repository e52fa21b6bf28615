// What every handler gets: the store, the caller's organization and the request.
import type { IncomingMessage } from 'node:http';
import { forbidden, notFound } from './http';
import type { Job, Organization, RecruiterStore } from './store';

export interface RequestContext {
  store: RecruiterStore;
  org: Organization;
  req: IncomingMessage;
  url: URL;
}

/** A handler's answer: status and JSON body. */
export interface Reply {
  status: number;
  body: unknown;
}

export const ok = (body: unknown): Reply => ({ status: 200, body });
export const created = (body: unknown): Reply => ({ status: 201, body });

export function parseId(segment: string, what: string): number {
  if (!/^[1-9]\d{0,15}$/.test(segment)) throw notFound(`${what} ${JSON.stringify(segment)} not found`);
  return Number(segment);
}

/** The caller's own job: 404 when it does not exist, 403 when another organization owns it. */
export function loadOwnJob(ctx: RequestContext, idSegment: string): Job {
  const id = parseId(idSegment, 'job');
  const job = ctx.store.jobs.get(id);
  if (!job) throw notFound(`job ${id} not found`);
  if (job.organizationId !== ctx.org.id) throw forbidden(`job ${id} belongs to another organization`);
  return job;
}

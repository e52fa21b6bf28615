// The delivery API (spec: delivery-api.md) as pure request -> ResponsePlan functions.

import type { IncomingMessage } from 'node:http';
import { clipBody } from '../clips';
import { parseIso8601 } from '../iso8601';
import { SET_STATUSES, type SetStatus } from '../model';
import { errorPlan, jsonPlan, type BodySource, type ResponsePlan } from '../http/plan';
import { collectionDetailJson, collectionSummaryJson, consentJson, meJson, setJson } from '../serialize';
import type { Store } from '../store';
import { authenticate } from './auth';
import { decideRange } from './range';

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 200;

type Route =
  | { name: 'GET /me' }
  | { name: 'GET /collections' }
  | { name: 'GET /collections/:id'; collectionId: number }
  | { name: 'GET /collections/:id/sets'; collectionId: number }
  | { name: 'GET /collections/:id/sets/:set_id'; collectionId: number; setId: number }
  | { name: 'GET /files/:id'; fileId: number }
  | { name: 'GET /consents/:id'; consentId: number };

const ID = '(\\d{1,15})';
const PATTERNS: Array<[RegExp, (m: RegExpExecArray) => Route]> = [
  [/^\/me\/?$/, () => ({ name: 'GET /me' })],
  [/^\/collections\/?$/, () => ({ name: 'GET /collections' })],
  [new RegExp(`^/collections/${ID}/?$`), (m) => ({ name: 'GET /collections/:id', collectionId: Number(m[1]) })],
  [new RegExp(`^/collections/${ID}/sets/?$`), (m) => ({ name: 'GET /collections/:id/sets', collectionId: Number(m[1]) })],
  [new RegExp(`^/collections/${ID}/sets/${ID}/?$`), (m) => ({ name: 'GET /collections/:id/sets/:set_id', collectionId: Number(m[1]), setId: Number(m[2]) })],
  [new RegExp(`^/files/${ID}/?$`), (m) => ({ name: 'GET /files/:id', fileId: Number(m[1]) })],
  [new RegExp(`^/consents/${ID}/?$`), (m) => ({ name: 'GET /consents/:id', consentId: Number(m[1]) })],
];

function matchRoute(path: string): Route | undefined {
  for (const [pattern, make] of PATTERNS) {
    const m = pattern.exec(path);
    if (m) return make(m);
  }
  return undefined;
}

/** Label for statistics, e.g. "GET /collections/:id/sets"; unknown paths share one label. */
export function routeLabel(method: string, path: string): string {
  const route = matchRoute(path);
  const verb = method === 'HEAD' ? 'HEAD' : method;
  return route ? route.name.replace(/^GET/, verb) : `${verb} (no such endpoint)`;
}

export function isFileRoute(path: string): boolean {
  return matchRoute(path)?.name === 'GET /files/:id';
}

export interface DeliveryContext {
  store: Store;
  /** Absolute base address, e.g. http://127.0.0.1:1234/api/v1/partner (for url fields). */
  apiBase: string;
  now: () => number;
  /** The service's seed: part of every clip body's stamp (clips.ts). */
  seed: number;
}

export interface DeliveryFaults {
  ignoreRange: boolean;
  /** The `endless_feed` fault: has_more stays true and pages past the end repeat the last one. */
  endlessFeed?: boolean;
}

export function handleDelivery(req: IncomingMessage, path: string, url: URL, ctx: DeliveryContext, opts: DeliveryFaults): ResponsePlan {
  const auth = authenticate(req, ctx.store, ctx.now());
  if (!auth.ok) return errorPlan(auth.status, auth.message, auth.status === 401 ? { 'www-authenticate': 'Bearer realm="delivery"' } : {});
  const route = matchRoute(path);
  if (!route) return errorPlan(404, `no such endpoint: ${path}`);
  if (req.method !== 'GET' && req.method !== 'HEAD') return errorPlan(405, `method ${req.method ?? ''} is not allowed here; this API is read-only`, { allow: 'GET, HEAD' });

  const { store, apiBase } = ctx;
  const clientId = auth.client.id;
  switch (route.name) {
    case 'GET /me':
      return jsonPlan(200, meJson(auth.client, auth.key));
    case 'GET /collections':
      return jsonPlan(200, { collections: store.collectionsOf(clientId).map(collectionSummaryJson) });
    case 'GET /collections/:id': {
      const collection = store.collectionFor(clientId, route.collectionId);
      return collection ? jsonPlan(200, collectionDetailJson(collection, store)) : errorPlan(404, `collection ${route.collectionId} not found`);
    }
    case 'GET /collections/:id/sets':
      return listSets(route.collectionId, clientId, url, ctx, opts.endlessFeed === true);
    case 'GET /collections/:id/sets/:set_id': {
      const collection = store.collectionFor(clientId, route.collectionId);
      if (!collection) return errorPlan(404, `collection ${route.collectionId} not found`);
      const set = store.setIn(collection, route.setId);
      return set ? jsonPlan(200, { set: setJson(set, store, apiBase) }) : errorPlan(404, `set ${route.setId} not found in collection ${route.collectionId}`);
    }
    case 'GET /files/:id':
      return serveFile(req, route.fileId, clientId, ctx, opts.ignoreRange);
    case 'GET /consents/:id': {
      const consent = store.servableConsent(clientId, route.consentId);
      return consent ? jsonPlan(200, consentJson(consent)) : errorPlan(404, `consent ${route.consentId} not found`);
    }
  }
}

/** Reads a query parameter given at most once; repeated parameters are ambiguous, so 400. */
function single(url: URL, name: string): string | undefined | { error: string } {
  const all = url.searchParams.getAll(name);
  if (all.length > 1) return { error: `${name} was given more than once` };
  return all[0];
}

function listSets(collectionId: number, clientId: number, url: URL, ctx: DeliveryContext, endless: boolean): ResponsePlan {
  const { store, apiBase } = ctx;
  const collection = store.collectionFor(clientId, collectionId);
  if (!collection) return errorPlan(404, `collection ${collectionId} not found`);

  const status = single(url, 'status');
  const updatedSince = single(url, 'updated_since');
  const page = single(url, 'page');
  const perPage = single(url, 'per_page');
  for (const value of [status, updatedSince, page, perPage]) if (typeof value === 'object') return errorPlan(400, value.error);

  let wanted: SetStatus = 'accepted';
  if (typeof status === 'string') {
    if (!(SET_STATUSES as readonly string[]).includes(status)) return errorPlan(400, `status must be one of ${SET_STATUSES.join(', ')}`);
    wanted = status as SetStatus;
  }
  let since: number | undefined;
  if (typeof updatedSince === 'string') {
    since = parseIso8601(updatedSince);
    if (since === undefined) return errorPlan(400, 'updated_since must be an ISO 8601 timestamp, e.g. 2026-03-02T08:00:00.000Z');
  }
  // Decisions on what the spec leaves open: a page that is not a positive integer and a
  // per_page outside 1..200 are refused with 400 (silently clamping would hide client bugs);
  // a page past the end is a normal 200 with no sets and has_more false.
  let pageNumber = 1;
  if (typeof page === 'string') {
    if (!/^\d{1,9}$/.test(page) || Number(page) < 1) return errorPlan(400, 'page must be an integer of 1 or more');
    pageNumber = Number(page);
  }
  let size = DEFAULT_PER_PAGE;
  if (typeof perPage === 'string') {
    if (!/^\d{1,9}$/.test(perPage) || Number(perPage) < 1 || Number(perPage) > MAX_PER_PAGE) {
      return errorPlan(400, `per_page must be an integer from 1 to ${MAX_PER_PAGE}`);
    }
    size = Number(perPage);
  }

  // Strictly after the given instant (fractions below a millisecond count); a lazy collection's page is computed, not cut from a list.
  const feed = store.feed(collection.id, wanted, since);
  let offset = (pageNumber - 1) * size;
  // A broken server some clients meet: past the end it keeps answering its last page.
  if (endless && offset >= feed.total) offset = Math.max(0, (Math.ceil(feed.total / size) - 1) * size);
  const pageSets = feed.slice(offset, offset + size);
  return jsonPlan(200, {
    sets: pageSets.map((s) => setJson(s, store, apiBase)),
    page: pageNumber,
    per_page: size,
    total: feed.total,
    has_more: endless || offset + size < feed.total,
  });
}

function serveFile(req: IncomingMessage, fileId: number, clientId: number, ctx: DeliveryContext, ignoreRange: boolean): ResponsePlan {
  const file = ctx.store.servableFile(clientId, fileId);
  if (!file) return errorPlan(404, `file ${fileId} not found`);
  const etag = `"${file.sha256}"`;
  const headers: Record<string, string | number> = {
    'content-type': file.contentType,
    'content-disposition': contentDisposition(file.filename),
    etag,
    'accept-ranges': 'bytes',
    'cache-control': 'private, no-cache',
  };
  const decision = ignoreRange ? { kind: 'full' as const } : decideRange(headerValue(req.headers.range), headerValue(req.headers['if-range']), etag, file.size);
  // A real clip or a lazy collection's body is built per request (never kept); a synthetic body is read from disk.
  const clip = file.clip;
  const body = (start: number, end: number): BodySource =>
    clip
      ? { kind: 'buffer', data: clipBody(clip, file.id, file.version, ctx.seed).subarray(start, end + 1), offset: start }
      : file.bytes
        ? { kind: 'buffer', data: file.bytes.subarray(start, end + 1), offset: start }
        : { kind: 'file', path: file.diskPath, start, end };
  switch (decision.kind) {
    case 'full':
      return { status: 200, headers, body: body(0, file.size - 1) };
    case 'partial':
      return {
        status: 206,
        headers: { ...headers, 'content-range': `bytes ${decision.start}-${decision.end}/${file.size}` },
        body: body(decision.start, decision.end),
      };
    case 'unsatisfiable':
      return errorPlan(416, `range not satisfiable: file ${fileId} has ${file.size} bytes`, { 'content-range': `bytes */${file.size}`, 'accept-ranges': 'bytes' });
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * The name goes out as given (admin overrides can make it hostile on purpose, for client
 * tests), but quoted-string safe: quotes and backslashes escaped, non-ASCII and control
 * characters replaced, with the exact name in filename* when it is not plain ASCII.
 */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[\\"]/g, '\\$&').replace(/[^\x20-\x7e]/g, '_');
  const plain = /^[\x20-\x7e]*$/.test(filename);
  return plain ? `attachment; filename="${ascii}"` : `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

// The reference service: delivery API, recruiter API and admin interface on node:http.
// It is what the app syncs from by default and what every test runs against.

import * as http from 'node:http';
import type { Socket } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { AdminClient } from './admin-client';
import { hostAllowed, isLoopbackHost, misdirected, newAdminToken, serviceHosts } from './admin/guard';
import { handleAdmin, type AdminContext } from './admin/router';
import { createMonotonicClock } from './clock';
import { buildDemoData, type DemoData } from './demo-data';
import { LazyCollection } from './lazy-collection';
import { handleDelivery, isFileRoute, routeLabel, type DeliveryContext } from './delivery/router';
import { FaultRegistry, type ApiName, type Fault, type StreamFault } from './faults';
import { authorizationOf, echoErrorPlan, withEcho } from './http/echo-auth';
import { errorPlan, jsonPlan, type ResponsePlan } from './http/plan';
import { sendPlan } from './http/send';
import { MEDIA_FAULT_KINDS, MediaFaults } from './admin/media-faults';
import { sharedClipLibrary } from './clips';
import { MediaStore } from './media-store';
import { assignClips } from './real-media';
import type { JsonAnswer as RecruiterAnswer } from './recruiter/http';
import { createRecruiterApi } from './recruiter/index';
import { Stats } from './stats';
import { writeSeededBodies } from './seeded-bodies';
import { Store } from './store';
import { createSecureService, fetchTrusting, type TlsIdentity } from './tls/secure-server';
import type { VideoBodiesInfo } from './video-bodies';

export { AdminClient, AdminError } from './admin-client';
export type { TlsIdentity } from './tls/secure-server';
export type { VideoBodiesInfo } from './video-bodies';
export { createTestCertificates, type TestCertificates } from './tls/test-ca';
export type { AdminSetJson, AdminState, Fault, FaultEntry, FaultMatch, MediaFaultEntry, MediaFaultKind, SetStatusName, StatsSnapshot, TimelineEvent } from './admin-client';

export const DELIVERY_PATH = '/api/v1/partner';
export const RECRUITER_PATH = '/api/v1/recruiter';
export const ADMIN_PATH = '/admin';

export interface ServiceOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Cache of generated media bodies; default os.tmpdir()/dataset-sync-demo-data. */
  dataDir?: string;
  /** Default 42. */
  seed?: number;
  /** Accepted sets in the main collection of the first client; default 24. */
  sets?: number;
  /**
   * Bytes per media file of the main collection: synthetic bodies of that size (benchmarks, tests
   * that need a size). Absent (the default): real, playable demo videos (src-service/media/),
   * or 1 MiB synthetic bodies when that folder is missing.
   */
  fileSize?: number;
  /**
   * Large-collection mode: the main collection's `sets` accepted sets are generated on request
   * from (set id, slot) instead of held (lazy-collection.ts), so 250,000 sets x 4 files fit in a
   * few MB. Synthetic bodies of `fileSize` bytes (default 1024, at most 64 KiB). Default false.
   */
  lazy?: boolean;
  /**
   * With `fileSize`: the main collection's bodies are real videos of exactly that size (video-bodies.ts;
   * RunningService.videoBodies says how they were made), the listing's `media` theirs. Sets added
   * or edited later through the admin interface get synthetic bodies. Not with `lazy`. Default false.
   */
  videoBodies?: boolean;
  /** Start with one file of each media fault kind switched on (admin/media-faults.ts); default false. */
  mediaFaults?: boolean;
  /** Files per set in the main collection; default 4. */
  slots?: number;
  /** Default true. When false, one access-log line per request on stderr (method, path, status; never headers). */
  quiet?: boolean;
  /** Where access-log lines go when quiet is false; default stderr. (Addition to the brief's interface.) */
  log?: (line: string) => void;
  /** Serve HTTPS (HTTP/2 and HTTP/1.1 by ALPN) with this identity instead of plain HTTP/1.1; see tls/. */
  tls?: TlsIdentity;
  /** Origin clients reach the service at when something sits in front of it (the bench's link emulator, a proxy); every URL the service gives out uses it. Default: the listening address. */
  publicOrigin?: string;
  /** HTTP/1.1: an idle connection is closed after this many ms (Node's server.keepAliveTimeout); default 5000, Node's. */
  idleTimeoutMs?: number;
  /** HTTP/1.1: announce the idle timeout in `Keep-Alive: timeout=N` (whole seconds, as Node does); default true. */
  announceKeepAlive?: boolean;
  /**
   * HTTP/1.1: instead of closing an idle connection when its timeout expires, drop the next
   * request that arrives on it (connection closed, no answer; counted in stats.idleDrops). That
   * is what a client sees when it reuses a connection whose close is already on the wire to it
   * (a race that a long link makes likely); here it happens every time, so tests can rely on it.
   */
  lazyIdleClose?: boolean;
}

export interface ServiceClient {
  name: string;
  apiKey: string;
  /** Collection ids; [0] is the client's main collection. */
  collections: number[];
}

export interface RunningService {
  origin: string;
  deliveryBaseUrl: string;
  recruiterBaseUrl: string;
  adminBaseUrl: string;
  /** First = the main client; its collections[0] = the main collection. */
  clients: ServiceClient[];
  organizations: Array<{ name: string; apiKey: string; scopes: string[] }>;
  expiredKey: string;
  revokedKey: string;
  /** Per-run secret of the admin interface, sent as `Authorization: Bearer <adminToken>`. */
  adminToken: string;
  /** Sends the admin token with every call. */
  admin: AdminClient;
  /** What the main collection's bodies are when `videoBodies` was asked for. */
  videoBodies?: VideoBodiesInfo;
  /** Closes the server and every open socket at once (stalled ones too), then removes runtime files. */
  close(): Promise<void>;
}

export const DEFAULT_OPTIONS = { seed: 42, sets: 24, slots: 4 } as const;
/** Synthetic body size when no size is asked for but the demo videos are missing. */
export const FALLBACK_FILE_SIZE = 1024 * 1024;

/** Body size of a lazy collection when none is asked for: the million-file benchmark's. */
export const LAZY_DEFAULT_FILE_SIZE = 1024;

/** The main collection's accepted sets as a lazy collection; the live id counters move past its ranges. */
function lazyMainCollection(data: DemoData, options: { seed: number; sets: number; slots: number }): LazyCollection {
  const mainId = data.collectionsByClient.get(data.clients[0]?.id ?? -1)?.[0];
  const main = data.collections.find((c) => c.id === mainId);
  if (!main) throw new Error('demo data: no main collection');
  const lazy = new LazyCollection(main, options.sets, options.seed, { ...data.nextIds });
  data.nextIds = LazyCollection.reserve(data.nextIds, options.sets, options.slots);
  return lazy;
}

export function defaultDataDir(): string {
  return path.join(os.tmpdir(), 'dataset-sync-demo-data');
}

function checkOptions(o: { port: number; seed: number; sets: number; fileSize: number; slots: number }): void {
  const whole = (name: string, v: number, min: number, max: number): void => {
    if (!Number.isInteger(v) || v < min || v > max) throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${v}`);
  };
  whole('port', o.port, 0, 65535);
  whole('seed', o.seed, 0, 2 ** 31 - 1);
  whole('sets', o.sets, 0, 1_000_000);
  whole('fileSize', o.fileSize, 0, 2 ** 40);
  whole('slots', o.slots, 1, 99);
}

export async function startReferenceService(opts: ServiceOptions = {}): Promise<RunningService> {
  const options = {
    port: opts.port ?? 0,
    seed: opts.seed ?? DEFAULT_OPTIONS.seed,
    sets: opts.sets ?? DEFAULT_OPTIONS.sets,
    fileSize: opts.fileSize ?? (opts.lazy === true ? LAZY_DEFAULT_FILE_SIZE : FALLBACK_FILE_SIZE),
    slots: opts.slots ?? DEFAULT_OPTIONS.slots,
  };
  checkOptions(options);
  const host = opts.host ?? '127.0.0.1';
  const quiet = opts.quiet ?? true;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  // Real videos unless a size was asked for (synthetic bodies of that size, as the benchmarks need).
  // The clips are loaded either way (~400 KiB, once per process): media faults use them.
  const clips = sharedClipLibrary();
  const lazyMode = opts.lazy === true;
  const realMedia = opts.fileSize === undefined && clips !== null && !lazyMode;
  if (opts.fileSize === undefined && !clips && !lazyMode && !quiet) log(`reference service: demo videos not found (src-service/media); serving synthetic ${FALLBACK_FILE_SIZE}-byte bodies`);
  // Lazy mode: the main collection gets no seeded accepted sets; its `sets` are generated on request.
  const data = buildDemoData(lazyMode ? { ...options, sets: 0 } : options);
  const lazy = lazyMode ? lazyMainCollection(data, options) : undefined;
  const media = new MediaStore(opts.dataDir ?? defaultDataDir(), options.seed);
  if (opts.videoBodies === true && (opts.fileSize === undefined || lazyMode)) throw new RangeError('videoBodies needs a fileSize and is not for a lazy collection');
  const videoWanted = opts.videoBodies === true ? { dataDir: opts.dataDir ?? defaultDataDir(), clips } : undefined;
  let videoBodies: VideoBodiesInfo | undefined;
  if (realMedia) assignClips(data, clips, options.seed);
  else videoBodies = await writeSeededBodies(data, media, lazyMode ? { ...options, sets: 0 } : options, videoWanted);
  const store = new Store(data, lazy);
  const mediaFaults = new MediaFaults(options.seed);
  if (clips && opts.mediaFaults === true) for (const kind of MEDIA_FAULT_KINDS) mediaFaults.add(store, clips, { kind }, undefined);
  const recruiter = createRecruiterApi({ seed: options.seed });
  const faults = new FaultRegistry();
  const stats = new Stats();
  const now = createMonotonicClock();

  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const trackTimer = (timer: NodeJS.Timeout): (() => void) => {
    timers.add(timer);
    timer.unref();
    return () => timers.delete(timer);
  };

  let origin = '';
  // Filled in once the port is known.
  const hosts = new Set<string>();
  let checkHostEverywhere = false;
  const adminToken = newAdminToken();
  const deliveryCtx: DeliveryContext = { store, apiBase: '', now, seed: options.seed };
  const adminCtx: AdminContext = { store, media, clips, seed: options.seed, now, faults, mediaFaults, stats, apiBase: '', access: { token: adminToken, hosts } };

  const idleTimeoutMs = opts.idleTimeoutMs ?? 5000;
  const announceKeepAlive = opts.announceKeepAlive ?? true;
  const lazyIdleClose = opts.lazyIdleClose === true;
  /** HTTP/1.1 connections: when their last response finished (lazyIdleClose). */
  const idleSince = new WeakMap<Socket, number>();

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    if (req.httpVersionMajor === 1 && !keepAliveRules(req, res)) return;
    if (!quiet) res.on('finish', () => log(`${req.method ?? ''} ${(req.url ?? '').split('?')[0] ?? ''} ${res.statusCode}`));
    handleRequest(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        void sendPlan(req, res, errorPlan(500, 'internal error of the reference service'), undefined);
        if (!quiet) log(`reference service: ${String(error)}`);
      } else res.destroy();
    });
  };
  /**
   * The idle-connection options on one HTTP/1.1 request; false when the request was dropped.
   * Node announces `Keep-Alive: timeout=N` from server.keepAliveTimeout unless the answer sets
   * its own Connection header, so the header is written here whenever it must differ.
   */
  const keepAliveRules = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const socket = req.socket;
    if (lazyIdleClose) {
      const since = idleSince.get(socket);
      if (since !== undefined && Date.now() - since >= idleTimeoutMs) {
        stats.countIdleDrop();
        socket.destroy();
        return false;
      }
      res.on('finish', () => idleSince.set(socket, Date.now()));
    }
    const custom = lazyIdleClose || !announceKeepAlive;
    if (custom && !/\bclose\b/i.test(String(req.headers.connection ?? ''))) {
      res.setHeader('Connection', 'keep-alive');
      if (announceKeepAlive) res.setHeader('Keep-Alive', `timeout=${Math.floor(idleTimeoutMs / 1000)}`);
    }
    return true;
  };
  const server = opts.tls ? createSecureService(opts.tls, onRequest) : http.createServer(onRequest);
  // With lazyIdleClose the server itself closes idle connections only much later.
  if (server instanceof http.Server) server.keepAliveTimeout = lazyIdleClose ? idleTimeoutMs + 60_000 : idleTimeoutMs;
  // CONNECT bypasses the request handler; this is no proxy, so say so instead of dropping the socket.
  server.on('connect', (_req, socket: Socket) => {
    socket.end('HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD, POST, PUT, PATCH, DELETE\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  server.on('connection', (socket) => {
    stats.countConnection();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handleRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (checkHostEverywhere && !hostAllowed(req, hosts)) return sendPlan(req, res, misdirected(req), undefined);
    const url = originFormUrl(req.url, origin);
    if (!url) return sendPlan(req, res, errorPlan(400, 'the request target must be a path such as /api/v1/partner/me'), undefined);
    const pathname = url.pathname;
    const method = req.method ?? 'GET';
    if (pathname === ADMIN_PATH || pathname.startsWith(`${ADMIN_PATH}/`)) {
      const plan = await handleAdmin(req, pathname.slice(ADMIN_PATH.length) || '/', adminCtx);
      return sendPlan(req, res, plan, undefined);
    }
    const api: ApiName | undefined = underBase(pathname, DELIVERY_PATH) ? 'delivery' : underBase(pathname, RECRUITER_PATH) ? 'recruiter' : undefined;
    if (!api) return sendPlan(req, res, errorPlan(404, `no such endpoint: ${pathname}`), undefined);
    const sub = pathname.slice((api === 'delivery' ? DELIVERY_PATH : RECRUITER_PATH).length) || '/';
    const isFile = api === 'delivery' && isFileRoute(sub);
    const route = api === 'delivery' ? routeLabel(method, sub) : `recruiter ${method} ${sub.replace(/\/\d+(?=\/|$)/g, '/:id')}`;
    const ended = stats.countRequest(route, isFile, { path: sub + url.search, httpVersion: req.httpVersion });
    res.once('finish', ended);
    res.once('close', ended);

    const fault = faults.take(api, method, sub);
    const replaced = fault && answerReplacedByFault(fault, api, req);
    if (replaced) return sendPlan(req, res, replaced, undefined);
    if (fault?.type === 'latency') await sleep(fault.ms, trackTimer);
    if (res.destroyed) return;

    let plan = api === 'recruiter' ? recruiterPlan(await recruiter.handle(req, sub, url)) : handleDelivery(req, sub, url, deliveryCtx, { ignoreRange: fault?.type === 'ignore_range', endlessFeed: fault?.type === 'endless_feed' });
    if (fault?.type === 'echo_auth') plan = withEcho(plan, authorizationOf(req));
    const streamFault = fault && isStreamFault(fault) ? fault : undefined;
    return sendPlan(req, res, plan, streamFault, {
      onBodyBytes: isFile ? (n) => stats.countFileBytes(n) : undefined,
      trackTimer,
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('reference service: no TCP address after listen');
  const hostInUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  origin = opts.publicOrigin?.replace(/\/+$/, '') ?? `${opts.tls ? 'https' : 'http'}://${hostInUrl}:${address.port}`;
  for (const h of serviceHosts(host, address.port)) hosts.add(h);
  for (const h of serviceHosts(hostInUrl, address.port)) hosts.add(h);
  // What sits in front (publicOrigin) forwards the clients' Host.
  if (opts.publicOrigin) hosts.add(new URL(opts.publicOrigin).host.toLowerCase());
  // Bound to loopback, every name but the loopback ones is a DNS-rebinding page's: refuse it
  // for the APIs too. Bound wider, the APIs answer any Host (LAN clients use the machine's name).
  checkHostEverywhere = isLoopbackHost(host.toLowerCase());
  deliveryCtx.apiBase = `${origin}${DELIVERY_PATH}`;
  adminCtx.apiBase = deliveryCtx.apiBase;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      if (server instanceof http.Server) server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await closed;
      await media.dispose();
    })();
    return closing;
  };

  const clients: ServiceClient[] = data.clients.map((client) => {
    const key = data.keys.find((k) => k.clientId === client.id && !k.revoked && k.expiresAt === null);
    if (!key) throw new Error(`demo data: client ${client.name} has no valid key`);
    return { name: client.name, apiKey: key.secret, collections: [...(data.collectionsByClient.get(client.id) ?? [])] };
  });

  return {
    origin,
    deliveryBaseUrl: `${origin}${DELIVERY_PATH}`,
    recruiterBaseUrl: `${origin}${RECRUITER_PATH}`,
    adminBaseUrl: `${origin}${ADMIN_PATH}`,
    clients,
    organizations: recruiter.organizations.map((o) => ({ name: o.name, apiKey: o.apiKey, scopes: [...o.scopes] })),
    expiredKey: data.expiredKey,
    revokedKey: data.revokedKey,
    adminToken,
    admin: new AdminClient(`${origin}${ADMIN_PATH}`, adminToken, opts.tls && fetchTrusting(opts.tls.ca)),
    ...(videoBodies ? { videoBodies } : {}),
    close,
  };
}

/**
 * The request target as a URL, or undefined when it is not origin-form ("/path?query"):
 * absolute-form is for proxies and "*" for OPTIONS of a whole server, neither served here.
 * Prefixing the origin (instead of new URL(target, origin)) keeps "//x" a path, not a host.
 */
function originFormUrl(target: string | undefined, origin: string): URL | undefined {
  if (!target?.startsWith('/')) return undefined;
  try {
    return new URL(`${origin}${target}`);
  } catch {
    return undefined;
  }
}

function underBase(pathname: string, base: string): boolean {
  return pathname === base || pathname.startsWith(`${base}/`);
}

function isStreamFault(fault: Fault): fault is StreamFault {
  return fault.type === 'reset' || fault.type === 'stall' || fault.type === 'truncate' || fault.type === 'flip' || fault.type === 'trickle';
}

function recruiterPlan(answer: RecruiterAnswer): ResponsePlan {
  return jsonPlan(answer.status, answer.body, answer.headers);
}

/** Faults that answer instead of the API; undefined for faults that only shape the real answer. */
function answerReplacedByFault(fault: Fault, api: ApiName, req: http.IncomingMessage): ResponsePlan | undefined {
  switch (fault.type) {
    case 'echo_auth': {
      const status = fault.status ?? 500;
      return status === 200 ? undefined : echoErrorPlan(api, status, authorizationOf(req));
    }
    case 'status':
      return errorPlan(fault.status, `injected fault: HTTP ${fault.status}`);
    case 'rate_limit':
      return errorPlan(429, 'too many requests (injected fault)', { 'retry-after': String(fault.retryAfter) });
    case 'body':
      return {
        status: fault.status ?? 200,
        headers: { 'content-type': fault.contentType ?? 'application/json; charset=utf-8', ...(fault.contentRange !== undefined ? { 'content-range': fault.contentRange } : {}) },
        body: { kind: 'buffer', data: Buffer.from(fault.body) },
      };
    default:
      return undefined;
  }
}

function sleep(ms: number, track: (t: NodeJS.Timeout) => () => void): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      release();
      resolve();
    }, ms);
    const release = track(timer);
  });
}

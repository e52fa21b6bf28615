// Who may use the admin interface. It changes data and injects faults, and it runs on
// researchers' machines beside a browser, so a web page must not be able to drive it:
// - loopback peers only (even when the service is bound to a wider address);
// - a Host header that names this service on loopback (a DNS-rebinding page sends its own name);
// - the per-run admin token as `Authorization: Bearer <token>` (a page cannot know it);
// - calls that carry a body only as `Content-Type: application/json`, which a cross-origin
//   page cannot send without a CORS preflight that this service never grants.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { errorPlan, type ResponsePlan } from '../http/plan';

/** 32 random bytes, base64url: new for every start of the service. */
export function newAdminToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Host header values (lower case) that name this service: the loopback names and the bound host, on its port. */
export function serviceHosts(boundHost: string, port: number): Set<string> {
  const bound = boundHost.includes(':') && !boundHost.startsWith('[') ? `[${boundHost}]` : boundHost;
  const names = ['127.0.0.1', 'localhost', '[::1]', bound.toLowerCase()];
  const hosts = new Set(names.map((name) => `${name}:${port}`));
  // Port 80 may be left out of Host.
  if (port === 80) for (const name of names) hosts.add(name);
  return hosts;
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || host.startsWith('127.');
}

export function hostAllowed(req: IncomingMessage, hosts: ReadonlySet<string>): boolean {
  const host = req.headers.host;
  return host !== undefined && hosts.has(host.trim().toLowerCase());
}

export function misdirected(req: IncomingMessage): ResponsePlan {
  return errorPlan(421, `this service does not answer for Host ${JSON.stringify(req.headers.host ?? '')}; use 127.0.0.1, localhost or [::1] with its port`);
}

/** Loopback peers only, even if the service was bound to a wider address. */
function isLoopbackPeer(req: IncomingMessage): boolean {
  const address = req.socket.remoteAddress ?? '';
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** Compares in constant time: both sides are hashed first, so their lengths never differ. */
function tokenMatches(req: IncomingMessage, token: string): boolean {
  const m = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
  if (!m?.[1]) return false;
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(m[1]), digest(token));
}

function carriesBody(req: IncomingMessage): boolean {
  const method = req.method ?? 'GET';
  if (method === 'POST' || method === 'PUT' || method === 'PATCH') return true;
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

function isJson(req: IncomingMessage): boolean {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  return type === 'application/json';
}

/** The refusal for a request the admin interface must not serve; undefined when it may. */
export function refuseAdmin(req: IncomingMessage, access: { token: string; hosts: ReadonlySet<string> }): ResponsePlan | undefined {
  if (!isLoopbackPeer(req)) return errorPlan(403, 'the admin interface answers loopback clients only');
  if (!hostAllowed(req, access.hosts)) return misdirected(req);
  if (!tokenMatches(req, access.token)) {
    return errorPlan(401, 'the admin interface needs the admin token as Authorization: Bearer <adminToken>', { 'www-authenticate': 'Bearer realm="admin"' });
  }
  if (carriesBody(req) && !isJson(req)) return errorPlan(415, 'admin calls with a body take Content-Type: application/json only');
  return undefined;
}

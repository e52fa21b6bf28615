// Authentication (Bearer key -> organization) and scope checks.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { forbidden, unauthorized } from './http';
import type { Organization, RecruiterStore, Scope } from './store';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Returns the organization whose key is in `Authorization: Bearer <key>`, or throws 401. */
export function authenticate(store: RecruiterStore, req: IncomingMessage): Organization {
  const header = req.headers.authorization;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) throw unauthorized();
  // Compare digests in constant time so response timing says nothing about a key's prefix.
  const presented = digest(match[1]);
  const org = store.organizations.find((o) => timingSafeEqual(digest(o.apiKey), presented));
  if (!org) throw unauthorized();
  return org;
}

export function requireScope(org: Organization, scope: Scope): void {
  if (!org.scopes.includes(scope)) throw forbidden(`this API key lacks the ${scope} scope`);
}

/** What a client may see of its key: the first characters identify it, the rest stays secret. */
export function keyPrefix(apiKey: string): string {
  return apiKey.slice(0, 12);
}

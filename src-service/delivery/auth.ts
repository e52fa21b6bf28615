// Bearer authentication. Messages say what is wrong with the key, never the key itself.

import type { IncomingMessage } from 'node:http';
import type { ApiKeyRecord, ClientAccount } from '../model';
import type { Store } from '../store';

export const REQUIRED_SCOPE = 'collections:read';

export type AuthResult = { ok: true; client: ClientAccount; key: ApiKeyRecord } | { ok: false; status: 401 | 403; message: string };

export function authenticate(req: IncomingMessage, store: Store, now: number): AuthResult {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === '') return { ok: false, status: 401, message: 'missing Authorization header (expected "Bearer <API key>")' };
  const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
  if (!m || m[1] === undefined) return { ok: false, status: 401, message: 'malformed Authorization header (expected "Bearer <API key>")' };
  const check = store.checkKey(m[1], now);
  if (!check.ok) return { ok: false, status: 401, message: check.reason };
  // No seeded key lacks the scope; were one to, 403 is the honest answer for a valid key.
  if (!check.key.scopes.includes(REQUIRED_SCOPE)) return { ok: false, status: 403, message: `API key lacks the ${REQUIRED_SCOPE} scope` };
  return { ok: true, client: check.client, key: check.key };
}

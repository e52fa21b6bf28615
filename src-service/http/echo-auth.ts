// The echo_auth fault: a server that repeats the caller's Authorization header back in every
// place a client might show server text (error body, a response header, the reason phrase),
// so client tests can prove that an API key never reaches logs, errors or the UI.

import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { ApiName } from '../faults';
import { jsonPlan, type ResponsePlan } from './plan';

export const ECHO_HEADER = 'x-echo-authorization';

/** The request's Authorization header verbatim ('' when absent). */
export function authorizationOf(req: IncomingMessage): string {
  return req.headers.authorization ?? '';
}

/** Header values and reason phrases may not hold CR, LF or other control characters (Node throws). */
function headerSafe(value: string): string {
  return value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
}

function reasonWith(status: number, value: string): string {
  return `${STATUS_CODES[status] ?? 'Status'} (Authorization: ${headerSafe(value)})`;
}

/** The answer of an echo_auth fault with an error status, in the API's own error shape. */
export function echoErrorPlan(api: ApiName, status: number, value: string): ResponsePlan {
  const error = `injected fault: the request carried Authorization: ${value}`;
  // The recruiter API's validation errors also name fields; a client may print those too.
  const body = api === 'recruiter' ? { error, errors: { authorization: [value] } } : { error };
  return { ...jsonPlan(status, body, { [ECHO_HEADER]: headerSafe(value) }), reason: reasonWith(status, value) };
}

/** echo_auth with status 200: the real answer plus the echo (an `echo` field when the body is a JSON object). */
export function withEcho(plan: ResponsePlan, value: string): ResponsePlan {
  const out: ResponsePlan = { ...plan, reason: reasonWith(plan.status, value), headers: { ...plan.headers, [ECHO_HEADER]: headerSafe(value) } };
  if (plan.body.kind !== 'buffer' || !String(plan.headers['content-type'] ?? '').startsWith('application/json')) return out;
  try {
    const parsed: unknown = JSON.parse(plan.body.data.toString('utf8'));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return out;
    return { ...out, body: { kind: 'buffer', data: Buffer.from(JSON.stringify({ ...parsed, echo: value })) } };
  } catch {
    return out;
  }
}

// JSON responses and request bodies of the recruiter API. Every error answer has the shape
// {"error": "<message>"}; validation failures add {"errors": {"<field>": ["message", ...]}}.
import type { IncomingMessage } from 'node:http';

export type FieldErrors = Record<string, string[]>;

/** Thrown by handlers; the router turns it into the matching JSON answer. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fieldErrors?: FieldErrors,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const unauthorized = (): HttpError =>
  new HttpError(401, 'invalid or missing API key', undefined, { 'www-authenticate': 'Bearer realm="recruiter"' });
export const forbidden = (message: string): HttpError => new HttpError(403, message);
export const notFound = (message = 'not found'): HttpError => new HttpError(404, message);
export const validationFailed = (errors: FieldErrors): HttpError => new HttpError(422, 'validation failed', errors);
/** An illegal state move: a 422 whose field errors name `state`. */
export const illegalMove = (message: string): HttpError => validationFailed({ state: [message] });

/** An answer of the recruiter API: status, extra headers and the JSON body (the service serializes it). */
export interface JsonAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export function errorAnswer(err: HttpError): JsonAnswer {
  const body: { error: string; errors?: FieldErrors } = { error: err.message };
  if (err.fieldErrors) body.errors = err.fieldErrors;
  return { status: err.status, headers: err.headers, body };
}

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads a JSON body. An empty body reads as `undefined` (accept and reject need none);
 * bytes that are not JSON give 400, a body over 1 MiB gives 413.
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'request body larger than 1 MiB');
    chunks.push(buf);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'request body is not valid JSON');
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

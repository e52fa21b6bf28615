// The HTTP boundary both API clients share: one request/answer wrapper over an undici
// dispatcher, one status -> error-kind mapping, one way to word failures, and one redaction of
// the API key from everything a server sent (redact.ts). JSON answers are bounded in size,
// nesting and pace (json-body.ts) and redacted before any schema or caller sees them.
import { errors as undiciErrors, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { check } from './answer';
import { ApiError, type ApiErrorKind, type NetworkCause } from './errors';
import { BodyCollector, BodyTooLargeError, BodyTooSlowError, MAX_JSON_BYTES, MAX_JSON_DEPTH, nestedDeeperThan } from './json-body';
import { createAnswerRedactor, createRedactor, type Redactor } from './redact';
import { isCertificateError } from './dispatcher';

export type Headers = Record<string, string | string[] | undefined>;

/** Bytes of an error body read for its message; the status decides, the text only explains. */
const ERROR_BODY_BYTES = 16 * 1024;

/**
 * One mapping for both APIs. Statuses a spec does not list are read as the first status of
 * their class (RFC 9110 section 15: "a client MUST understand the class of any status code ...
 * and treat an unrecognized status code as being equivalent to the x00 status code of that
 * class"): an unlisted 4xx is `bad_request` (the service refused the request; not retryable),
 * an unlisted 5xx is `server`. 1xx and 3xx are no answer either API gives (redirects are not
 * followed: the key must not travel) and are `malformed`.
 */
export function kindOfStatus(status: number): ApiErrorKind {
  if (status === 401) return 'auth';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 416) return 'range';
  if (status === 422) return 'validation';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server';
  if (status >= 400) return 'bad_request';
  return 'malformed';
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

/** 422 `errors` as an object of arrays or strings, an array of {field, message(s)}, a list or a string. */
export function parseFieldErrors(raw: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const add = (field: string, message: unknown) => {
    const texts = Array.isArray(message) ? message : [message];
    for (const m of texts) {
      const text = typeof m === 'string' ? m : typeof m === 'object' && m !== null && 'message' in m ? String((m as { message: unknown }).message) : JSON.stringify(m);
      (out[field] ??= []).push(text);
    }
  };
  if (typeof raw === 'string') add('base', raw);
  else if (Array.isArray(raw)) {
    for (const item of raw) {
      if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
        const rec = item as Record<string, unknown>;
        const field = typeof rec.field === 'string' ? rec.field : typeof rec.param === 'string' ? rec.param : 'base';
        add(field, rec.messages ?? rec.message ?? rec.error ?? 'is invalid');
      } else add('base', item);
    }
  } else if (typeof raw === 'object' && raw !== null) {
    for (const [field, messages] of Object.entries(raw)) add(field, messages);
  }
  return out;
}

const STATUS_LEADS: Partial<Record<ApiErrorKind, string>> = {
  forbidden: 'access denied (the key lacks the scope, or the resource belongs to another account)',
  not_found: 'not found',
  validation: 'the request was refused',
};

export interface HttpEndpointOptions {
  dispatcher: Dispatcher;
  /** A validated base URL (validateBaseUrl). */
  baseUrl: string;
  apiKey: string;
  /** Put before every message, e.g. "Recruiter API: ". */
  messagePrefix?: string;
  /** No response headers within this time -> network error. */
  headersTimeoutMs: number;
  /** The stall window: no body bytes for this long, or less than 1 KiB/s over it -> network error. */
  bodyTimeoutMs: number;
  /** Largest JSON answer read (default MAX_JSON_BYTES). */
  maxJsonBytes?: number;
}

export interface JsonRequest {
  method: Dispatcher.HttpMethod;
  /** Absolute path on the origin, query string included. */
  path: string;
  /** Sent as JSON. */
  body?: unknown;
  signal?: AbortSignal;
}

export interface HttpEndpoint {
  readonly origin: string;
  readonly host: string;
  /** The base URL's path without a trailing slash ("" for the root). */
  readonly basePath: string;
  readonly authorization: string;
  readonly redact: Redactor;
  readonly requestCount: number;
  /** Counts a request made outside requestJson (file downloads). */
  countRequest(): void;
  /** "GET /path" with the message prefix, query string left out, redacted. */
  labelOf(method: string, path: string): string;
  /**
   * Sends one request and reads a 2xx JSON answer: parsed, redacted, not yet checked against
   * a schema (undefined when the body is empty). Any other status is thrown as an ApiError.
   */
  requestJson(req: JsonRequest): Promise<unknown>;
  /**
   * `value` checked against `schema`, or ApiError('malformed') naming the field. The label may be
   * given as a function, called only when the value fails (a label is redacted text: one per
   * answer of a first sync's 20,000 consents was work for nothing).
   */
  parse<S extends z.ZodType>(schema: S, value: unknown, label: string | (() => string), root?: string): z.output<S>;
  malformed(label: string, problem: string): ApiError;
  statusError(status: number, headers: Headers, bodyText: string, label: string): ApiError;
  /** An error before or instead of an answer (connect, headers timeout, cancel). */
  networkError(e: unknown, label: string): ApiError;
  /** An error while a body was flowing (reset, stall, cancel). */
  bodyError(e: unknown, label: string): ApiError;
}

export function createHttpEndpoint(o: HttpEndpointOptions): HttpEndpoint {
  const base = new URL(o.baseUrl + '/');
  const { origin, host } = base;
  const basePath = base.pathname.replace(/\/$/, '');
  const redact = createRedactor(o.apiKey);
  const redactAnswer = createAnswerRedactor(o.apiKey, redact);
  const prefix = o.messagePrefix ?? '';
  const maxJsonBytes = o.maxJsonBytes ?? MAX_JSON_BYTES;
  let requestCount = 0;

  const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
  // Every message is redacted. No undici error is attached as `cause`: a parser error carries
  // raw bytes of the answer, which may hold an echoed key.
  const apiError = (kind: ApiErrorKind, message: string, opts: ConstructorParameters<typeof ApiError>[2] = {}) =>
    new ApiError(kind, redact(message), opts);
  const isAbort = (e: unknown) => {
    const err = e as { name?: string; code?: string } | null;
    return err?.name === 'AbortError' || err?.code === 'ABORT_ERR' || e instanceof undiciErrors.RequestAbortedError;
  };

  /**
   * Sends one request and gathers its answer (a 2xx body up to maxJsonBytes, else the first
   * ERROR_BODY_BYTES) through a dispatch handler. Rejects with the ApiError the endpoint words:
   * before the answer's head a network error, after it a body error; an error status whose body
   * failed is still its status.
   */
  function answerOf(req: JsonRequest, label: () => string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
    return new Promise((resolve, reject) => {
      const signal = req.signal;
      let controller: Dispatcher.DispatchController | undefined;
      let status = 0;
      let headers: Headers = {};
      let body: BodyCollector | undefined;
      /** An error of our own (the collector's, a cancel) that the resulting onResponseError passes on. */
      let ownError: Error | undefined;
      let settled = false;
      const settle = (err: unknown) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        if (err === undefined) resolve({ status, headers, bytes: body?.bytes() ?? Buffer.alloc(0) });
        else reject(err);
      };
      const abortWith = (reason: Error) => {
        ownError ??= reason;
        if (controller && !controller.aborted) controller.abort(reason);
      };
      const onAbort = () => abortWith(apiError('aborted', `${label()}: cancelled`));
      if (signal?.aborted) return settle(apiError('aborted', `${label()}: cancelled`));
      signal?.addEventListener('abort', onAbort, { once: true });
      const ok = () => status >= 200 && status < 300;
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(c) {
          controller = c;
          if (ownError) c.abort(ownError);
        },
        onResponseStart(_c, statusCode, h) {
          status = statusCode;
          headers = h as Headers;
          body = new BodyCollector(ok() ? { limit: maxJsonBytes, overflow: 'fail', windowMs: o.bodyTimeoutMs } : { limit: ERROR_BODY_BYTES, overflow: 'truncate', windowMs: o.bodyTimeoutMs });
        },
        onResponseData(c, chunk) {
          try {
            if (body!.add(chunk)) return;
          } catch (e) {
            abortWith(e as Error);
            return;
          }
          // An error body read as far as it is read: the status decides, the rest is not wanted.
          settle(undefined);
          c.abort(apiError('aborted', `${label()}: rest of the error body not read`));
        },
        onResponseEnd() {
          settle(undefined);
        },
        onResponseError(_c, err) {
          const e = ownError ?? err;
          if (e instanceof ApiError) settle(e); // our own cancel
          else if (body === undefined) settle(endpoint.networkError(e, label()));
          else if (!ok() && !isAbort(e)) settle(endpoint.statusError(status, headers, '', label())); // error bodies are advisory
          else if (e instanceof BodyTooLargeError) settle(endpoint.malformed(label(), e.message));
          else settle(endpoint.bodyError(e, label()));
        },
      };
      const sendHeaders: Record<string, string> = { authorization: endpoint.authorization, accept: 'application/json' };
      if (req.body !== undefined) sendHeaders['content-type'] = 'application/json';
      try {
        o.dispatcher.dispatch(
          {
            origin,
            method: req.method,
            path: req.path,
            headers: sendHeaders,
            body: req.body === undefined ? undefined : JSON.stringify(req.body),
            headersTimeout: o.headersTimeoutMs,
            bodyTimeout: o.bodyTimeoutMs,
          },
          handler,
        );
      } catch (e) {
        settle(endpoint.networkError(e, label()));
      }
    });
  }

  const endpoint: HttpEndpoint = {
    origin,
    host,
    basePath,
    authorization: `Bearer ${o.apiKey}`,
    redact,
    get requestCount() {
      return requestCount;
    },
    countRequest() {
      requestCount++;
    },
    // Paths may come from server-given URLs (files, consents): redacted like any server text.
    labelOf: (method, path) => redact(`${prefix}${method} ${path.replace(/\?.*$/, '')}`),

    async requestJson(req) {
      // Built only when an error names the request (a label is redacted text; a first sync's
      // 20,000 consent answers never need theirs).
      const label = (): string => endpoint.labelOf(req.method, req.path);
      requestCount++;
      const { status, headers, bytes } = await answerOf(req, label);
      if (status < 200 || status >= 300) throw endpoint.statusError(status, headers, bytes.toString('utf8'), label());
      if (bytes.length === 0) return undefined;
      const type = firstHeader(headers, 'content-type') ?? '';
      if (!/\bjson\b/i.test(type)) {
        throw apiError('malformed', `${label()}: expected a JSON answer, got ${type ? `content type ${type.slice(0, 60)}` : 'no content type'}`, { status });
      }
      const text = bytes.toString('utf8');
      if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
        throw endpoint.malformed(label(), `the answer nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels`);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw apiError('malformed', `${label()}: the answer is not valid JSON`, { status });
      }
      return redactAnswer(text, parsed);
    },

    parse(schema, value, label, root = '') {
      const r = check(schema, value, root);
      if (r.ok) return r.value;
      throw endpoint.malformed(typeof label === 'string' ? label : label(), r.problem);
    },

    malformed: (label, problem) => apiError('malformed', `${label}: unexpected answer: ${problem}`),

    statusError(status, headers, bodyText, label) {
      const kind = kindOfStatus(status);
      let record: Record<string, unknown> = {};
      try {
        const parsed = JSON.parse(bodyText) as unknown;
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) record = parsed as Record<string, unknown>;
      } catch {
        // Error bodies are advisory: the status decides.
      }
      const serverMessage = typeof record.error === 'string' ? record.error : typeof record.message === 'string' ? record.message : '';
      const fieldErrors = kind === 'validation' ? parseFieldErrors(record.errors) : undefined;
      const hasFieldErrors = fieldErrors !== undefined && Object.keys(fieldErrors).length > 0;
      const detail = hasFieldErrors
        ? `: ${Object.entries(fieldErrors).map(([f, m]) => `${f} ${m.join('; ')}`).join(', ')}`
        : serverMessage
          ? `: ${serverMessage}`
          : '';
      const lead = STATUS_LEADS[kind];
      const head = kind === 'auth' ? 'The API key was rejected (401)' : `HTTP ${status}${lead ? ` (${lead})` : ''}`;
      return apiError(kind, `${label}: ${head}${detail}`.slice(0, 600), {
        status,
        retryAfterSeconds: parseRetryAfter(headers['retry-after']),
        fieldErrors: hasFieldErrors ? Object.fromEntries(Object.entries(fieldErrors).map(([f, m]) => [redact(f), m.map(redact)])) : undefined,
      });
    },

    networkError(e, label) {
      if (e instanceof ApiError) return e;
      if (isAbort(e)) return apiError('aborted', `${label}: cancelled`);
      const err = e as { name?: string; code?: string } | null;
      let what = err?.code ?? err?.name ?? 'error';
      let networkCause: NetworkCause | undefined;
      if (err?.code === 'UND_ERR_HEADERS_TIMEOUT') what = `no answer within ${seconds(o.headersTimeoutMs)}`;
      if (err?.code === 'UND_ERR_BODY_TIMEOUT') {
        what = `transfer stalled (no data for ${seconds(o.bodyTimeoutMs)})`;
        networkCause = 'stalled';
      }
      if (err?.code === 'ECONNREFUSED') what = 'connection refused';
      // Certificate failures are never bypassed; say so plainly so users fix the certificate, not the client.
      if (isCertificateError(err)) {
        what = `TLS certificate not accepted: ${err?.code}`;
        networkCause = 'tls';
      }
      // Already says which proxy refused and why, without its credentials.
      if (err?.code === 'PROXY_REFUSED') what = (e as Error).message;
      return apiError('network', `${label}: could not reach ${host} (${what})`, { networkCause });
    },

    bodyError(e, label) {
      if (e instanceof ApiError) return e;
      if (isAbort(e)) return apiError('aborted', `${label}: cancelled`);
      const err = e as { name?: string; code?: string } | null;
      const stalled = e instanceof BodyTooSlowError || err?.code === 'UND_ERR_BODY_TIMEOUT';
      const what =
        e instanceof BodyTooSlowError ? e.message : err?.code === 'UND_ERR_BODY_TIMEOUT' ? `transfer stalled (no data for ${seconds(o.bodyTimeoutMs)})` : (err?.code ?? err?.name ?? 'connection error');
      return apiError('network', `${label}: transfer from ${host} failed (${what})`, stalled ? { networkCause: 'stalled' } : {});
    },
  };
  return endpoint;
}

export function firstHeader(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

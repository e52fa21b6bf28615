// HTTP client of the delivery API (spec/delivery-api.md) over one undici Pool. Every JSON
// answer is validated (validate.ts) before callers see it; every failure is an ApiError with a
// kind. The API key goes only to the base URL's origin and never into messages.
import type { Readable } from 'node:stream';
import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import { validateBaseUrl } from './base-url';
import { ApiError, type ApiErrorKind } from './errors';
import type { CollectionDetail, CollectionSummary, ConsentRecord, Me, SetRecord, SetsPage } from './types';
import {
  ContractError,
  validateCollectionDetail,
  validateCollections,
  validateConsent,
  validateMe,
  validateSet,
  validateSetsPage,
} from './validate';

export interface DeliveryClientOptions {
  /** Validated with validateBaseUrl (https, or http on loopback). */
  baseUrl: string;
  apiKey: string;
  /** Parallel connections to the service (downloads plus metadata), default 8. */
  connections?: number;
  /** No response headers within this time -> network error. Default 30 s. */
  headersTimeoutMs?: number;
  /** No body bytes for this long -> network error (the stall watchdog). Default 30 s. */
  bodyTimeoutMs?: number;
}

export interface SetsQuery {
  status?: string;
  updatedSince?: string;
  page?: number;
  perPage?: number;
}

export interface OpenFileResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

export interface FileResponseHead {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

/** Flow control handed to a body sink: pause the socket while the disk catches up, or abort with the sink's own error. */
export interface BodyFlow {
  resume(): void;
  abort(reason: Error): void;
}

export interface FileBodySink {
  /** One body chunk (the socket's own buffer, safe to keep). Return false to pause until flow.resume(). */
  onData(chunk: Buffer): boolean;
}

export interface DeliveryClient {
  readonly baseUrl: string;
  me(signal?: AbortSignal): Promise<Me>;
  listCollections(signal?: AbortSignal): Promise<CollectionSummary[]>;
  getCollection(id: number, signal?: AbortSignal): Promise<CollectionDetail>;
  listSets(collectionId: number, q: SetsQuery, signal?: AbortSignal): Promise<SetsPage>;
  getSet(collectionId: number, setId: number, signal?: AbortSignal): Promise<SetRecord>;
  /** `url` is a consent.url from a set; it must be on the base URL's origin. */
  getConsent(url: string, signal?: AbortSignal): Promise<ConsentRecord>;
  /**
   * Opens a file body. Answers 200, 206 and 416 are returned (the caller decides); any other
   * status becomes an ApiError. The caller must consume or destroy `body`.
   */
  openFile(url: string, opts: { start?: number; ifRange?: string; signal?: AbortSignal }): Promise<OpenFileResult>;
  /**
   * The download hot path: like openFile, but body chunks go straight to a sink (no Readable
   * stream in between). `onHead` sees 200, 206 and 416 and returns a sink, or null to drop the
   * body (the request is aborted). Resolves once the body ended (or was dropped); rejects with
   * an ApiError (status, network, stall, abort) or with the Error the sink passed to flow.abort.
   */
  streamFile(
    url: string,
    opts: { start?: number; ifRange?: string; signal?: AbortSignal },
    onHead: (head: FileResponseHead, flow: BodyFlow) => FileBodySink | null,
  ): Promise<void>;
  readonly requestCount: number;
  close(): Promise<void>;
}

const MAX_JSON_BYTES = 64 * 1024 * 1024;

function statusKind(status: number): ApiErrorKind {
  if (status === 400) return 'bad_request';
  if (status === 401) return 'auth';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 416) return 'range';
  if (status === 422) return 'validation';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server';
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

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function createDeliveryClient(opts: DeliveryClientOptions): DeliveryClient {
  const baseUrl = validateBaseUrl(opts.baseUrl);
  const base = new URL(baseUrl + '/');
  const origin = base.origin;
  const host = base.host;
  if (!opts.apiKey || /[\r\n]/.test(opts.apiKey)) throw new ApiError('auth', 'The API key is empty or contains line breaks.');
  const authorization = `Bearer ${opts.apiKey}`;
  const headersTimeout = opts.headersTimeoutMs ?? 30_000;
  const bodyTimeout = opts.bodyTimeoutMs ?? 30_000;
  const pool = new Pool(origin, { connections: opts.connections ?? 8, pipelining: 1, keepAliveTimeout: 10_000 });
  let requestCount = 0;

  /** Resolves a server-given URL and refuses other origins so the key never leaves the service. */
  function pathOnOrigin(url: string, what: string): string {
    let u: URL;
    try {
      u = new URL(url, base);
    } catch {
      throw new ApiError('malformed', `The ${what} URL given by the service is not a valid URL.`);
    }
    if (u.origin !== origin) {
      throw new ApiError('malformed', `The ${what} URL points to ${u.origin}, not to the service at ${origin}; refusing to send the API key there.`);
    }
    return u.pathname + u.search;
  }

  function apiPath(rel: string): string {
    return base.pathname.replace(/\/$/, '') + rel;
  }

  function networkError(e: unknown, label: string): ApiError {
    if (e instanceof ApiError) return e;
    const err = e as { name?: string; code?: string; message?: string };
    if (err?.name === 'AbortError' || err?.code === 'ABORT_ERR' || e instanceof undiciErrors.RequestAbortedError) {
      return new ApiError('aborted', `${label}: cancelled`, { cause: e });
    }
    let what = err?.code ?? err?.name ?? 'error';
    if (err?.code === 'UND_ERR_HEADERS_TIMEOUT') what = `no answer within ${Math.round(headersTimeout / 1000)} s`;
    if (err?.code === 'UND_ERR_BODY_TIMEOUT') what = `transfer stalled (no data for ${Math.round(bodyTimeout / 1000)} s)`;
    if (err?.code === 'ECONNREFUSED') what = 'connection refused';
    // Certificate failures are never bypassed; say so plainly so users fix the certificate, not the client.
    if (typeof err?.code === 'string' && /CERT|SELF_SIGNED|ERR_TLS|SSL/.test(err.code)) what = `TLS certificate not accepted: ${err.code}`;
    return new ApiError('network', `${label}: could not reach ${host} (${what})`, { cause: e });
  }

  async function errorFromResponse(status: number, headers: Record<string, string | string[] | undefined>, body: Readable, label: string): Promise<ApiError> {
    let text = '';
    try {
      text = await readText(body, 16 * 1024);
    } catch {
      // Error bodies are advisory: the status decides.
    }
    return apiErrorOf(status, headers, text, label);
  }

  function apiErrorOf(status: number, headers: Record<string, string | string[] | undefined>, text: string, label: string): ApiError {
    let detail = '';
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === 'object' && typeof (parsed as { error?: unknown }).error === 'string') {
        detail = `: ${(parsed as { error: string }).error.slice(0, 300)}`;
      }
    } catch {
      // Error bodies are advisory: the status decides.
    }
    const kind = statusKind(status);
    const retryAfterSeconds = parseRetryAfter(headers['retry-after']);
    const prefix = kind === 'auth' ? 'The API key was rejected (401)' : `HTTP ${status}`;
    return new ApiError(kind, `${label}: ${prefix}${detail}`, { status, retryAfterSeconds });
  }

  async function getJson<T>(path: string, validate: (v: unknown) => T, signal?: AbortSignal): Promise<T> {
    const label = `GET ${path.replace(/\?.*$/, '')}`;
    requestCount++;
    let res;
    try {
      res = await pool.request({
        method: 'GET',
        path,
        headers: { authorization, accept: 'application/json' },
        signal,
        headersTimeout,
        bodyTimeout,
      });
    } catch (e) {
      throw networkError(e, label);
    }
    if (res.statusCode !== 200) throw await errorFromResponse(res.statusCode, res.headers, res.body, label);
    const ct = header(res.headers, 'content-type') ?? '';
    let text: string;
    try {
      text = await readText(res.body, MAX_JSON_BYTES);
    } catch (e) {
      throw networkError(e, label);
    }
    if (!/\bjson\b/i.test(ct)) {
      throw new ApiError('malformed', `${label}: expected a JSON answer, got ${ct ? `content type ${ct.slice(0, 60)}` : 'no content type'}`, { status: 200 });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ApiError('malformed', `${label}: the answer is not valid JSON`, { status: 200 });
    }
    try {
      return validate(parsed);
    } catch (e) {
      if (e instanceof ContractError) throw new ApiError('malformed', `${label}: unexpected answer: ${e.message}`, { status: 200, cause: e });
      throw e;
    }
  }

  function positiveId(id: number, what: string): number {
    if (!Number.isSafeInteger(id) || id <= 0) throw new ApiError('bad_request', `${what} must be a positive integer, got ${id}`);
    return id;
  }

  return {
    baseUrl,
    get requestCount() {
      return requestCount;
    },
    me: (signal) => getJson(apiPath('/me'), validateMe, signal),
    listCollections: (signal) => getJson(apiPath('/collections'), validateCollections, signal),
    getCollection: (id, signal) => getJson(apiPath(`/collections/${positiveId(id, 'collection id')}`), validateCollectionDetail, signal),
    listSets(collectionId, q, signal) {
      const params = new URLSearchParams();
      if (q.status !== undefined) params.set('status', q.status);
      if (q.updatedSince !== undefined) params.set('updated_since', q.updatedSince);
      if (q.page !== undefined) params.set('page', String(q.page));
      if (q.perPage !== undefined) params.set('per_page', String(q.perPage));
      const qs = params.toString();
      return getJson(apiPath(`/collections/${positiveId(collectionId, 'collection id')}/sets${qs ? `?${qs}` : ''}`), validateSetsPage, signal);
    },
    getSet: (collectionId, setId, signal) =>
      getJson(apiPath(`/collections/${positiveId(collectionId, 'collection id')}/sets/${positiveId(setId, 'set id')}`), validateSet, signal),
    async getConsent(url, signal) {
      return getJson(pathOnOrigin(url, 'consent'), validateConsent, signal);
    },
    async openFile(url, o) {
      const path = pathOnOrigin(url, 'file');
      const label = `GET ${path}`;
      const headers = fileHeaders(o);
      requestCount++;
      let res;
      try {
        res = await pool.request({ method: 'GET', path, headers, signal: o.signal, headersTimeout, bodyTimeout, highWaterMark: 1024 * 1024 });
      } catch (e) {
        throw networkError(e, label);
      }
      if (res.statusCode === 200 || res.statusCode === 206 || res.statusCode === 416) {
        const body = res.body as unknown as Readable;
        // Errors surfacing from the body later (reset, stall) carry undici codes; callers map them with mapBodyError.
        return { status: res.statusCode, headers: res.headers, body };
      }
      throw await errorFromResponse(res.statusCode, res.headers, res.body, label);
    },
    streamFile(url, o, onHead) {
      let path: string;
      try {
        path = pathOnOrigin(url, 'file');
      } catch (e) {
        return Promise.reject(e);
      }
      const label = `GET ${path}`;
      requestCount++;
      return new Promise<void>((resolve, reject) => {
        const signal = o.signal;
        let controller: Dispatcher.DispatchController | undefined;
        let sink: FileBodySink | null = null;
        /** An error of our own (the sink's, a cancel) that the resulting onResponseError must pass on unchanged. */
        let ownError: Error | undefined;
        let dropped = false;
        let errorBody: { status: number; headers: FileResponseHead['headers']; chunks: Buffer[]; bytes: number } | undefined;
        let settled = false;
        const settle = (err?: unknown) => {
          if (settled) return;
          settled = true;
          signal?.removeEventListener('abort', onAbort);
          if (err === undefined) resolve();
          else reject(err);
        };
        const abortWith = (reason: Error) => {
          ownError ??= reason;
          if (controller && !controller.aborted) controller.abort(reason);
        };
        const onAbort = () => abortWith(new ApiError('aborted', `${label}: cancelled`));
        if (signal?.aborted) {
          settle(new ApiError('aborted', `${label}: cancelled`));
          return;
        }
        signal?.addEventListener('abort', onAbort, { once: true });
        const flow: BodyFlow = { resume: () => controller?.resume(), abort: abortWith };
        const handler: Dispatcher.DispatchHandler = {
          onRequestStart(c) {
            controller = c;
            if (ownError) c.abort(ownError);
          },
          onResponseStart(c, statusCode, rawHeaders) {
            const headers = rawHeaders as FileResponseHead['headers'];
            if (statusCode === 200 || statusCode === 206 || statusCode === 416) {
              try {
                sink = onHead({ status: statusCode, headers }, flow);
              } catch (e) {
                abortWith(e instanceof Error ? e : new Error(String(e)));
                return;
              }
              if (sink === null) {
                dropped = true;
                settle();
                c.abort(new ApiError('aborted', `${label}: body not wanted`));
              }
              return;
            }
            errorBody = { status: statusCode, headers, chunks: [], bytes: 0 };
          },
          onResponseData(c, chunk) {
            if (sink) {
              if (!sink.onData(chunk)) c.pause();
            } else if (errorBody && errorBody.bytes < 16 * 1024) {
              errorBody.chunks.push(chunk);
              errorBody.bytes += chunk.length;
            }
          },
          onResponseEnd() {
            if (errorBody) {
              const { status, headers: h, chunks } = errorBody;
              settle(apiErrorOf(status, h, Buffer.concat(chunks).toString('utf8'), label));
              return;
            }
            settle();
          },
          onResponseError(_c, err) {
            if (dropped) return;
            // Before any answer it is a connection problem; once a body was flowing, a transfer problem.
            settle(ownError ?? (sink ? mapBodyError(err, label, host) : networkError(err, label)));
          },
        };
        try {
          pool.dispatch({ origin, method: 'GET', path, headers: fileHeaders(o), headersTimeout, bodyTimeout }, handler);
        } catch (e) {
          settle(networkError(e, label));
        }
      });
    },
    async close() {
      await pool.close().catch(() => pool.destroy());
    },
  };

  function fileHeaders(o: { start?: number; ifRange?: string }): Record<string, string> {
    const headers: Record<string, string> = { authorization, accept: '*/*' };
    if (o.start !== undefined && o.start > 0) {
      headers.range = `bytes=${o.start}-`;
      if (o.ifRange !== undefined) headers['if-range'] = o.ifRange;
    }
    return headers;
  }

  async function readText(body: AsyncIterable<Buffer | string>, limit: number): Promise<string> {
    const chunks: Buffer[] = [];
    let n = 0;
    for await (const c of body) {
      const b = typeof c === 'string' ? Buffer.from(c) : c;
      n += b.length;
      if (n > limit) throw new ApiError('malformed', `answer larger than ${limit} bytes`);
      chunks.push(b);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}

/** Maps an error raised while reading a file body (reset, stall, abort) to an ApiError. */
export function mapBodyError(e: unknown, label: string, host: string): ApiError {
  if (e instanceof ApiError) return e;
  const err = e as { name?: string; code?: string };
  if (err?.name === 'AbortError' || err?.code === 'ABORT_ERR' || e instanceof undiciErrors.RequestAbortedError) {
    return new ApiError('aborted', `${label}: cancelled`, { cause: e });
  }
  const what = err?.code === 'UND_ERR_BODY_TIMEOUT' ? 'transfer stalled' : (err?.code ?? err?.name ?? 'connection error');
  return new ApiError('network', `${label}: transfer from ${host} failed (${what})`, { cause: e });
}

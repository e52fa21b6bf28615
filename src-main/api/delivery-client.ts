// HTTP client of the delivery API (spec/delivery-api.md) over one undici dispatcher (dispatcher.ts). Requests,
// status mapping, bounds and redaction are the shared boundary's (http.ts); every JSON answer
// is checked against its schema (src-shared/delivery-api.ts) before callers see it, and every
// failure is an ApiError with a kind. The API key goes only to the base URL's origin.
import type { Dispatcher } from 'undici';
import { createDispatcher } from './dispatcher';
import type { z } from 'zod';
import {
  CollectionDetailAnswerSchema,
  CollectionsSchema,
  ConsentAnswerSchema,
  MeSchema,
  SetAnswerSchema,
  SetRecordSchema,
  SetsPageEnvelopeSchema,
  type CollectionDetail,
  type CollectionSummary,
  type ConsentRecord,
  type Me,
  type RejectedSet,
  type SetRecord,
  type SetsPage,
} from '../../src-shared/delivery-api';
import { check } from './answer';
import { validateBaseUrl } from './base-url';
import { ApiError } from './errors';
import { createHttpEndpoint, type HttpEndpoint } from './http';
import { plainPathOn } from './plain-path';
import { redactHeaders } from './redact';

export interface DeliveryClientOptions {
  /** Validated with validateBaseUrl (https, or http on loopback). */
  baseUrl: string;
  apiKey: string;
  /** Parallel connections to the service (downloads plus metadata), default 8. */
  connections?: number;
  /** No response headers within this time -> network error. Default 30 s. */
  headersTimeoutMs?: number;
  /**
   * The stall window, default 30 s: no body bytes for this long -> network error; a JSON
   * answer bringing less than 1 KiB/s over it -> network error too.
   */
  bodyTimeoutMs?: number;
  /** Largest JSON answer read; default MAX_JSON_BYTES (json-body.ts). For tests. */
  maxJsonBytes?: number;
  /** Offer HTTP/2 to an https service (plain http stays HTTP/1.1); default true. */
  http2?: boolean;
}

export interface SetsQuery {
  status?: string;
  updatedSince?: string;
  page?: number;
  perPage?: number;
}

export interface FileResponseHead {
  status: number;
  /** Values redacted of the API key. */
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
  /** The collection asked for; an answer about another collection is `malformed`. */
  getCollection(id: number, signal?: AbortSignal): Promise<CollectionDetail>;
  /**
   * One page. The envelope (page, per_page, total, has_more, sets as an array) must be sound or
   * the page is `malformed`; each set record is checked on its own: those that fail are listed
   * in `rejected` with the reason, the others are in `sets`.
   */
  listSets(collectionId: number, q: SetsQuery, signal?: AbortSignal): Promise<SetsPage>;
  getSet(collectionId: number, setId: number, signal?: AbortSignal): Promise<SetRecord>;
  /** `url` is a consent.url from a set; it must be on the base URL's origin. */
  getConsent(url: string, signal?: AbortSignal): Promise<ConsentRecord>;
  /**
   * The download path: body chunks go straight to a sink (no Readable stream in between).
   * `onHead` sees 200, 206 and 416 and returns a sink, or null to drop the body (the request
   * is aborted); any other status becomes an ApiError. Resolves once the body ended (or was
   * dropped); rejects with an ApiError (status, network, stall, abort) or with the Error the
   * sink passed to flow.abort.
   */
  streamFile(
    url: string,
    opts: { start?: number; ifRange?: string; signal?: AbortSignal },
    onHead: (head: FileResponseHead, flow: BodyFlow) => FileBodySink | null,
  ): Promise<void>;
  readonly requestCount: number;
  /** True when requests may share connections (HTTP/2 offered): many small requests in flight cost no extra connections. */
  readonly multiplexed: boolean;
  close(): Promise<void>;
}

/** The id of a record that failed its schema, when it has a usable one. */
function idOf(record: unknown): number | null {
  const id = typeof record === 'object' && record !== null ? (record as { id?: unknown }).id : undefined;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : null;
}

export function createDeliveryClient(opts: DeliveryClientOptions): DeliveryClient {
  const baseUrl = validateBaseUrl(opts.baseUrl);
  if (!opts.apiKey || /[\r\n]/.test(opts.apiKey)) throw new ApiError('auth', 'The API key is empty or contains line breaks.');
  const headersTimeout = opts.headersTimeoutMs ?? 30_000;
  const bodyTimeout = opts.bodyTimeoutMs ?? 30_000;
  const origin = new URL(baseUrl).origin;
  // HTTP/2 is offered by ALPN on https only: plain http stays HTTP/1.1 (no h2c).
  const allowH2 = (opts.http2 ?? true) && baseUrl.startsWith('https:');
  const pool = createDispatcher({ connections: opts.connections ?? 8, allowH2 });
  const http: HttpEndpoint = createHttpEndpoint({
    dispatcher: pool,
    baseUrl,
    apiKey: opts.apiKey,
    headersTimeoutMs: headersTimeout,
    bodyTimeoutMs: bodyTimeout,
    maxJsonBytes: opts.maxJsonBytes,
  });

  /** Resolves a server-given URL and refuses other origins so the key never leaves the service. */
  function pathOnOrigin(url: string, what: string): string {
    const plain = plainPathOn(origin, url);
    if (plain !== null) return plain;
    let u: URL;
    try {
      u = new URL(url, `${baseUrl}/`);
    } catch {
      throw new ApiError('malformed', `The ${what} URL given by the service is not a valid URL.`);
    }
    if (u.origin !== origin) {
      throw new ApiError('malformed', http.redact(`The ${what} URL points to ${u.origin}, not to the service at ${origin}; refusing to send the API key there.`));
    }
    return u.pathname + u.search;
  }

  const apiPath = (rel: string): string => http.basePath + rel;

  async function getJson<S extends z.ZodType>(path: string, schema: S, signal?: AbortSignal): Promise<z.output<S>> {
    const body = await http.requestJson({ method: 'GET', path, signal });
    return http.parse(schema, body, () => http.labelOf('GET', path));
  }

  function positiveId(id: number, what: string): number {
    if (!Number.isSafeInteger(id) || id <= 0) throw new ApiError('bad_request', `${what} must be a positive integer, got ${id}`);
    return id;
  }

  async function listSets(collectionId: number, q: SetsQuery, signal?: AbortSignal): Promise<SetsPage> {
    const params = new URLSearchParams();
    if (q.status !== undefined) params.set('status', q.status);
    if (q.updatedSince !== undefined) params.set('updated_since', q.updatedSince);
    if (q.page !== undefined) params.set('page', String(q.page));
    if (q.perPage !== undefined) params.set('per_page', String(q.perPage));
    const qs = params.toString();
    const path = apiPath(`/collections/${positiveId(collectionId, 'collection id')}/sets${qs ? `?${qs}` : ''}`);
    const envelope = await getJson(path, SetsPageEnvelopeSchema, signal);
    // One bad record fails its own set (the engine reports it), not the page.
    const sets: SetRecord[] = [];
    const rejected: RejectedSet[] = [];
    envelope.sets.forEach((record, i) => {
      const r = check(SetRecordSchema, record, `sets[${i}]`);
      if (r.ok) sets.push(r.value);
      else rejected.push({ id: idOf(record), reason: r.problem });
    });
    return { ...envelope, sets, rejected };
  }

  async function getCollection(id: number, signal?: AbortSignal): Promise<CollectionDetail> {
    const path = apiPath(`/collections/${positiveId(id, 'collection id')}`);
    const { collection } = await getJson(path, CollectionDetailAnswerSchema, signal);
    if (collection.id !== id) throw http.malformed(http.labelOf('GET', path), `collection.id is ${collection.id}, not the collection ${id} asked for`);
    return collection;
  }

  function fileHeaders(o: { start?: number; ifRange?: string }): Record<string, string> {
    const headers: Record<string, string> = { authorization: http.authorization, accept: '*/*' };
    if (o.start !== undefined && o.start > 0) {
      headers.range = `bytes=${o.start}-`;
      if (o.ifRange !== undefined) headers['if-range'] = o.ifRange;
    }
    return headers;
  }

  function streamFile(
    url: string,
    o: { start?: number; ifRange?: string; signal?: AbortSignal },
    onHead: (head: FileResponseHead, flow: BodyFlow) => FileBodySink | null,
  ): Promise<void> {
    let path: string;
    try {
      path = pathOnOrigin(url, 'file');
    } catch (e) {
      return Promise.reject(e);
    }
    // Built only when an error names the request (a label is redacted text; a file request that
    // succeeds never needs one).
    const label = (): string => http.labelOf('GET', path);
    http.countRequest();
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
      const onAbort = () => abortWith(new ApiError('aborted', `${label()}: cancelled`));
      if (signal?.aborted) {
        settle(new ApiError('aborted', `${label()}: cancelled`));
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
              sink = onHead({ status: statusCode, headers: redactHeaders(headers, http.redact) }, flow);
            } catch (e) {
              abortWith(e instanceof Error ? e : new Error(String(e)));
              return;
            }
            if (sink === null) {
              dropped = true;
              settle();
              c.abort(new ApiError('aborted', `${label()}: body not wanted`));
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
            settle(http.statusError(status, h, Buffer.concat(chunks).toString('utf8'), label()));
            return;
          }
          settle();
        },
        onResponseError(_c, err) {
          if (dropped) return;
          // Before any answer it is a connection problem; once a body was flowing, a transfer problem.
          settle(ownError ?? (sink ? http.bodyError(err, label()) : http.networkError(err, label())));
        },
      };
      try {
        pool.dispatch({ origin, method: 'GET', path, headers: fileHeaders(o), headersTimeout, bodyTimeout }, handler);
      } catch (e) {
        settle(http.networkError(e, label()));
      }
    });
  }

  return {
    baseUrl,
    get requestCount() {
      return http.requestCount;
    },
    multiplexed: allowH2,
    me: (signal) => getJson(apiPath('/me'), MeSchema, signal),
    listCollections: async (signal) => (await getJson(apiPath('/collections'), CollectionsSchema, signal)).collections,
    getCollection,
    listSets,
    getSet: async (collectionId, setId, signal) =>
      (await getJson(apiPath(`/collections/${positiveId(collectionId, 'collection id')}/sets/${positiveId(setId, 'set id')}`), SetAnswerSchema, signal)).set,
    getConsent: async (url, signal) => (await getJson(pathOnOrigin(url, 'consent'), ConsentAnswerSchema, signal)).consent,
    streamFile,
    async close() {
      await pool.close().catch(() => pool.destroy());
    },
  };
}

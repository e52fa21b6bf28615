// The S3 client's request handler when a proxy is configured: the service client's own undici
// dispatcher (createDispatcher), so the bucket follows the same HTTPS_PROXY/HTTP_PROXY/NO_PROXY
// rules (loopback never proxied, plain HTTP forwarded, HTTPS tunnelled), the desktop's system
// proxy, and trusts the same certificate authorities. Without a proxy the SDK's own Node handler
// serves (client.ts): nothing changes for the usual case.
//
// The SDK's handler contract is small (handle(request) → { response }), so it is adapted here
// rather than adding a proxy-agent package to drive the SDK's http.Agent.
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { createDispatcher } from '../../../api/dispatcher';

/** What the SDK hands a request handler (@smithy/types HttpRequest, structurally). */
interface SdkRequest {
  protocol: string;
  hostname: string;
  port?: number;
  method: string;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
  body?: unknown;
}

interface SdkResponse {
  statusCode: number;
  reason?: string;
  headers: Record<string, string>;
  body: Readable;
}

export interface ProxiedHandlerOptions {
  connectTimeout: number;
  /** Most time without progress while sending or waiting for the answer, ms. */
  idleTimeout: number;
}

export class ProxiedRequestHandler {
  readonly metadata = { handlerProtocol: 'http/1.1' };
  private readonly dispatcher: Dispatcher;

  constructor(private readonly opts: ProxiedHandlerOptions) {
    this.dispatcher = createDispatcher({
      connectTimeout: opts.connectTimeout,
      headersTimeout: opts.idleTimeout,
      bodyTimeout: opts.idleTimeout,
      // Multipart uploads send several parts at once; the SDK's own handler allows 50 sockets.
      connections: 50,
    });
  }

  async handle(request: SdkRequest, options: { abortSignal?: unknown } = {}): Promise<{ response: SdkResponse }> {
    const port = request.port ? `:${request.port}` : '';
    const query = queryString(request.query ?? {});
    const headers = { ...request.headers };
    // undici refuses Expect (it does not do 100-continue); the body is simply sent.
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'expect') delete headers[name];
    const signal = options.abortSignal as AbortSignal | undefined;
    try {
      const res = await this.dispatcher.request({
        origin: `${request.protocol}//${request.hostname}${port}`,
        path: request.path + (query ? `?${query}` : ''),
        method: request.method as Dispatcher.HttpMethod,
        headers,
        body: (request.body ?? null) as Dispatcher.DispatchOptions['body'],
        ...(signal && typeof signal.addEventListener === 'function' ? { signal } : {}),
      });
      const flat: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
      res.body.on('error', (e) => asNodeError(e));
      return { response: { statusCode: res.statusCode, headers: flat, body: res.body } };
    } catch (e) {
      throw asNodeError(e);
    }
  }

  updateHttpClientConfig(): void {
    // The timeouts are fixed at construction (client.ts); nothing else is configurable.
  }

  httpHandlerConfigs(): ProxiedHandlerOptions {
    return this.opts;
  }

  destroy(): void {
    void this.dispatcher.close().catch(() => undefined);
  }
}

/** The query as the SDK's own handler writes it (RFC 3986: also ! ' ( ) * escaped). */
function queryString(query: Record<string, string | string[] | null>): string {
  const escape = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const parts: string[] = [];
  for (const key of Object.keys(query).sort()) {
    const value = query[key];
    if (value === null || value === undefined) parts.push(escape(key));
    else for (const v of Array.isArray(value) ? value : [value]) parts.push(`${escape(key)}=${escape(v)}`);
  }
  return parts.join('&');
}

/**
 * undici names its failures UND_ERR_*; the SDK's retries and the destination's error words
 * (errors.ts) know Node's codes. The error is kept (with its cause), given the Node code that
 * means the same.
 */
function asNodeError(e: unknown): unknown {
  if (!(e instanceof Error)) return e;
  const err = e as Error & { code?: string; cause?: { code?: string } };
  if (err.code === 'UND_ERR_CONNECT_TIMEOUT' || err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT') {
    err.name = 'TimeoutError';
  } else if (err.code?.startsWith('UND_ERR_')) {
    const cause = err.cause?.code;
    err.code = cause && /^E[A-Z_]+$/.test(cause) ? cause : err.code === 'UND_ERR_SOCKET' || err.code === 'UND_ERR_CLOSED' ? 'ECONNRESET' : err.code;
  }
  return err;
}

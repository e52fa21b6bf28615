// The undici dispatcher behind the API clients: the proxies of the environment
// (HTTPS_PROXY/HTTP_PROXY/NO_PROXY, as curl reads them), the certificate authorities the
// machine trusts (the OS store as well as Node's own roots and NODE_EXTRA_CA_CERTS, because
// Node 20 reads no OS store by itself and a company's TLS-inspecting CA lives there), and
// HTTP/2 where the server offers it. Certificate verification is never turned off.

import { readFileSync } from 'node:fs';
import * as tls from 'node:tls';
import { Agent, buildConnector, Client, EnvHttpProxyAgent, Pool, type Dispatcher } from 'undici';
import { redactCredentials } from './redact';
import { registeredSystemProxy, SystemProxyDispatcher, type SystemProxy } from './system-proxy';

export { redactCredentials } from './redact';

export interface DispatcherOptions {
  /** Most connections per origin (and to a proxy that forwards plain HTTP); default 8. */
  connections?: number;
  /** Offer HTTP/2 by ALPN on HTTPS (several transfers share one connection); default false. */
  allowH2?: boolean;
  /** Default timeouts of a request, ms (callers may still set their own per request). */
  headersTimeout?: number;
  bodyTimeout?: number;
  /** Time allowed to open a connection (TCP and TLS), ms; default 10 000 (undici's default). */
  connectTimeout?: number;
  /**
   * How long an idle HTTP/1.1 connection is kept for reuse when the server does not say, ms;
   * default DEFAULT_KEEP_ALIVE_MS. A `Keep-Alive: timeout=N` answer overrides it (see below).
   */
  keepAliveTimeout?: number;
  /** Where the proxy variables are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * The system's proxy settings (the desktop app: system-proxy.ts); default: what the app
   * registered with useSystemProxy, if anything. Used when no proxy variable is set.
   */
  systemProxy?: SystemProxy;
}

/** The proxy variables as undici's EnvHttpProxyAgent wants them. */
export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy: string;
}

/**
 * OS bundles, in the order Go's crypto/x509 looks for them; the first that exists is read.
 * Debian/Ubuntu/Arch (also Alpine's ca-certificates package), Fedora/RHEL, openSUSE,
 * RHEL 7+ extracted bundle, Alpine and macOS' openssl bundle.
 */
export const OS_CA_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
  '/etc/ssl/cert.pem',
];

// HTTP/2 flow-control windows. undici's defaults (256 KiB per stream, 512 KiB per connection)
// cap one connection at 512 KiB per round trip: 52 Mbit/s at 80 ms. These let one connection
// fill a 1 Gbit/s link at 20 ms or 200 Mbit/s at 80 ms (bandwidth-delay product about 2.5 MB).
const H2_STREAM_WINDOW = 4 * 1024 * 1024;
const H2_CONNECTION_WINDOW = 16 * 1024 * 1024;

/**
 * Idle connections are kept below common servers' idle timeouts (Node's 5 s, the reference
 * service's), so a request never goes out on a connection the server is closing: that request
 * would fail and be retried after a round trip lost. Reusing is worth it (a new connection costs
 * a handshake and slow start), reusing a dying one is worse.
 */
export const DEFAULT_KEEP_ALIVE_MS = 4000;
/**
 * When the server announces `Keep-Alive: timeout=N`, undici keeps the connection N s minus this
 * margin (the answer's travel time and timer slack), up to KEEP_ALIVE_MAX_MS.
 */
const KEEP_ALIVE_MARGIN_MS = 1500;
const KEEP_ALIVE_MAX_MS = 120_000;

export function createDispatcher(opts: DispatcherOptions = {}): Dispatcher {
  const proxies = proxySettingsFromEnv(opts.env ?? process.env);
  const system = opts.systemProxy ?? registeredSystemProxy();
  // Proxy variables set for this process are the user's explicit choice; otherwise the system's settings apply.
  if (system && !proxies.httpProxy && !proxies.httpsProxy) {
    return new SystemProxyDispatcher(system, (url) => dispatcherFor(opts, url ? { httpProxy: url, httpsProxy: url, noProxy: proxies.noProxy } : proxies));
  }
  return dispatcherFor(opts, proxies);
}

function dispatcherFor(opts: DispatcherOptions, proxies: ProxySettings): Dispatcher {
  const connections = opts.connections ?? 8;
  const poolOptions = {
    connections,
    allowH2: opts.allowH2 ?? false,
    headersTimeout: opts.headersTimeout,
    bodyTimeout: opts.bodyTimeout,
    connectTimeout: opts.connectTimeout,
    keepAliveTimeout: opts.keepAliveTimeout ?? DEFAULT_KEEP_ALIVE_MS,
    keepAliveTimeoutThreshold: KEEP_ALIVE_MARGIN_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MAX_MS,
    ...(opts.allowH2 ? { initialWindowSize: H2_STREAM_WINDOW, connectionWindowSize: H2_CONNECTION_WINDOW } : {}),
  };
  // Every origin (and a proxy forwarding plain HTTP) gets one pool with the same limits;
  // undici's forwarding path would otherwise open connections to the proxy without bound.
  const factory = (origin: string | URL, o: object) => new Pool(origin, { ...o, ...poolOptions, factory: multiplexingClient });
  // Direct connections and the TLS endpoint of a CONNECT tunnel trust the same authorities;
  // allowH2 must be given to the tunnel's TLS as well for ALPN to offer h2 through a proxy.
  const connect = directConnector({ allowH2: poolOptions.allowH2, timeout: opts.connectTimeout });
  if (!proxies.httpProxy && !proxies.httpsProxy) {
    // No proxy: the agent EnvHttpProxyAgent would use for every request, without its choice per
    // request (a URL parsed and NO_PROXY matched for each one: 0.12 s of the engine's thread in a
    // profile of a 10,000-set first sync, issue 21). Unlike EnvHttpProxyAgent, it never falls back
    // to process.env's variables when `opts.env` names none: they are read where opts.env says.
    return new Agent({ ...poolOptions, connect, factory }).compose(clearProxyErrors(proxies));
  }
  const agent = new EnvHttpProxyAgent({
    ...proxies,
    noProxy: withLoopback(proxies.noProxy),
    ...poolOptions,
    connect,
    requestTls: { secureContext: trustedSecureContext(), allowH2: poolOptions.allowH2 } as tls.ConnectionOptions,
    proxyTls: { secureContext: trustedSecureContext() },
    // Plain-HTTP origins are forwarded by the proxy (GET http://host/... as curl does), not
    // tunnelled: many company proxies allow CONNECT to port 443 only.
    proxyTunnel: false,
    factory,
  });
  return agent.compose(clearProxyErrors(proxies));
}

/** Requests in flight on one HTTP/2 connection (undici's own cap on a server's offer). */
const H2_STREAMS = 100;

/**
 * A connection of the pool. undici sends one request at a time on each connection unless told
 * otherwise (`pipelining: 1`), HTTP/2 included, so a pool would open a connection per transfer
 * instead of multiplexing. Once TLS has chosen the protocol (ALPN), an HTTP/2 connection takes
 * up to H2_STREAMS requests; an HTTP/1.1 one stays at one (no pipelining: a slow body would hold
 * up every request queued behind it).
 */
function multiplexingClient(origin: string | URL, o: Client.Options): Dispatcher {
  const connect = o.connect as buildConnector.connector;
  const client: Client = new Client(origin, {
    ...o,
    pipelining: 1,
    connect: (options, callback) =>
      connect(options, (error, socket) => {
        if (socket) {
          const streams = (socket as tls.TLSSocket).alpnProtocol === 'h2' ? H2_STREAMS : 1;
          client.once('connect', () => (client.pipelining = streams));
        }
        callback(error, socket as never);
      }),
  });
  return client;
}

/**
 * True for an error of certificate verification (OpenSSL's verify codes as Node reports them,
 * e.g. UNABLE_TO_VERIFY_LEAF_SIGNATURE, CERT_HAS_EXPIRED, SELF_SIGNED_CERT_IN_CHAIN, or a
 * name mismatch). Such an error is not transient: retrying cannot help, trusting the CA can.
 */
export function isCertificateError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /CERT|UNABLE_TO_(VERIFY|GET)|SELF_SIGNED|INVALID_(CA|PURPOSE)|PATH_LENGTH_EXCEEDED|HOSTNAME_MISMATCH|ERR_TLS|ERR_SSL/.test(code);
}

/** A proxy answered a request (or its CONNECT) with a status other than success. */
export class ProxyRefusedError extends Error {
  readonly code = 'PROXY_REFUSED';
  constructor(
    readonly status: number,
    proxyHost: string,
    cause: unknown,
  ) {
    const hint = status === 407 ? ' (Proxy Authentication Required: check the user name and password in the proxy URL)' : '';
    super(`The proxy ${proxyHost} refused the request with HTTP ${status}${hint}.`, { cause });
    this.name = 'ProxyRefusedError';
  }
}

/**
 * Connects without a proxy. Reading and parsing the trusted CAs costs tens of milliseconds, so
 * it happens at the first HTTPS connection: plain http://127.0.0.1 (the demo, the tests, the
 * bench) never pays it. (With a proxy set, the tunnel's TLS needs them up front.)
 */
function directConnector(o: { allowH2: boolean; timeout?: number }): buildConnector.connector {
  const plain = buildConnector(o);
  let secure: buildConnector.connector | undefined;
  return (options, callback) => {
    if (options.protocol !== 'https:') return plain(options, callback);
    secure ??= buildConnector({ ...o, secureContext: trustedSecureContext() });
    return secure(options, callback);
  };
}

/**
 * This machine is never reached through a proxy (as in Go's net/http): a proxy cannot reach the
 * user's own loopback, and a local demo's key has no business on the company proxy.
 */
function withLoopback(noProxy: string): string {
  return noProxy.trim() === '*' ? '*' : [noProxy, 'localhost', '127.0.0.1', '[::1]'].filter((s) => s.trim() !== '').join(',');
}

/**
 * Reads the proxy variables (lower-case first, as curl and undici do) and checks them, so that
 * a malformed value fails here with a clear message rather than deep inside undici, and
 * never with its credentials in the message.
 */
export function proxySettingsFromEnv(env: NodeJS.ProcessEnv): ProxySettings {
  const pick = (name: string) => {
    const lower = name.toLowerCase();
    const value = env[lower] ?? env[name];
    if (value === undefined || value.trim() === '') return undefined;
    return checkProxyUrl(env[lower] !== undefined ? lower : name, value.trim());
  };
  return { httpProxy: pick('HTTP_PROXY'), httpsProxy: pick('HTTPS_PROXY'), noProxy: env.no_proxy ?? env.NO_PROXY ?? '' };
}

function checkProxyUrl(variable: string, value: string): string {
  // "proxy.corp:3128" (no scheme) means an HTTP proxy, as for curl.
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`${variable} is not a valid proxy URL: ${redactCredentials(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${variable} must be an http:// or https:// proxy URL, got ${url.protocol}// (${redactCredentials(value)})`);
  }
  return url.href;
}


/**
 * An interceptor that turns undici's proxy refusals into a ProxyRefusedError naming the proxy
 * and the status, and removes proxy credentials from every error a request fails with (and
 * from its causes): the proxy URL, the decoded user:password and the Basic token.
 */
function clearProxyErrors(proxies: ProxySettings): Dispatcher.DispatcherComposeInterceptor {
  const secrets = new Set<string>();
  for (const href of [proxies.httpProxy, proxies.httpsProxy]) {
    if (!href) continue;
    const url = new URL(href);
    if (!url.username && !url.password) continue;
    const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    for (const s of [href, `${url.username}:${url.password}`, pair, Buffer.from(pair).toString('base64'), decodeURIComponent(url.password)]) {
      if (s.length >= 3) secrets.add(s);
    }
  }
  const scrub = (text: string): string => {
    let out = redactCredentials(text);
    for (const s of secrets) out = out.split(s).join('***');
    return out;
  };
  const scrubError = (error: unknown, depth = 0): Error => {
    if (error instanceof Error && depth < 5) {
      // Written only when something changes: a caller's abort reason (a DOMException) has a
      // read-only message, and must reach the caller untouched.
      for (const key of ['message', 'stack'] as const) {
        const text = error[key];
        if (typeof text !== 'string') continue;
        const clean = scrub(text);
        if (clean === text) continue;
        try {
          error[key] = clean;
        } catch {
          // read-only; such errors are not made from proxy settings
        }
      }
      if (error.cause !== undefined) scrubError(error.cause, depth + 1);
    }
    return error as Error;
  };
  // undici's wording: "Proxy response (407) !== 200 when HTTP Tunneling" (CONNECT) and
  // "Proxy Authentication Required (407)" (plain forwarding; it reports no other status).
  const refusal = (error: Error, origin: string): ProxyRefusedError | undefined => {
    const status = /^Proxy response \((\d{3})\) !== 200/.exec(error.message)?.[1] ?? /^Proxy Authentication Required \((407)\)$/.exec(error.message)?.[1];
    if (!status) return undefined;
    const proxy = origin.startsWith('https:') ? (proxies.httpsProxy ?? proxies.httpProxy) : proxies.httpProxy;
    return new ProxyRefusedError(Number(status), proxy ? new URL(proxy).host : 'proxy', error);
  };
  const clear = (error: unknown, origin: string): Error => {
    const scrubbed = scrubError(error);
    return (scrubbed instanceof Error && refusal(scrubbed, origin)) || scrubbed;
  };
  return (dispatch) => (opts, handler) => {
    const origin = String(opts.origin ?? '');
    try {
      return dispatch(opts, {
        onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
        onRequestUpgrade: (controller, status, headers, socket) => handler.onRequestUpgrade?.(controller, status, headers, socket),
        onResponseStart: (controller, status, headers, message) => handler.onResponseStart?.(controller, status, headers, message),
        onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
        onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
        onResponseError: (controller, error) => handler.onResponseError?.(controller, clear(error, origin)),
      });
    } catch (error) {
      throw clear(error, origin);
    }
  };
}

let trusted: { certificates: string[]; context: tls.SecureContext } | undefined;

/**
 * Every CA this process trusts, read once: Node's bundled roots, the OS store (the system
 * bundle file; on Node 22.15+ (Electron) also the platform store via tls.getCACertificates,
 * which covers macOS and Windows) and NODE_EXTRA_CA_CERTS.
 */
export function trustedCertificates(): string[] {
  return loadTrusted().certificates;
}

function trustedSecureContext(): tls.SecureContext {
  return loadTrusted().context;
}

function loadTrusted(): { certificates: string[]; context: tls.SecureContext } {
  if (trusted) return trusted;
  const all = new Set<string>(tls.rootCertificates);
  const add = (pem: string) => {
    for (const cert of splitPem(pem)) all.add(cert);
  };
  const bundle = OS_CA_BUNDLES.map(readIfPresent).find((text) => text !== undefined);
  if (bundle) add(bundle);
  const getCACertificates = (tls as { getCACertificates?: (type: string) => string[] }).getCACertificates;
  if (getCACertificates) for (const cert of getCACertificates('system')) all.add(cert.trim());
  // Node already warns at start-up when this file cannot be read.
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (extra) add(readIfPresent(extra) ?? '');
  const certificates = [...all];
  trusted = { certificates, context: tls.createSecureContext({ ca: certificates }) };
  return trusted;
}

function readIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function splitPem(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

// The desktop app's proxy: the operating system's settings, as Chromium resolves them for a URL
// (Electron's session.resolveProxy: manual settings, PAC scripts, WPAD), handed in by the thin
// Electron glue (src-main/index.ts) as a plain function, so this module runs and is tested in
// plain Node. Explicit proxy variables (HTTPS_PROXY/HTTP_PROXY) take precedence (dispatcher.ts).
import { Dispatcher } from 'undici';
import { redactCredentials } from './redact';

/** What the system says for a URL, in PAC form: "PROXY host:port; DIRECT". */
export type ResolveProxy = (url: string) => Promise<string>;

export interface SystemProxy {
  resolveProxy: ResolveProxy;
  /** Told once per origin when the system's answer cannot be followed (a SOCKS proxy...). Never holds credentials. */
  onNotice?: (message: string) => void;
}

/** `url` is an http:// proxy URL; `direct` means no proxy. */
export type ProxyChoice = { direct: true } | { direct: false; url: string };

const UNSUPPORTED = new Set(['HTTPS', 'SOCKS', 'SOCKS4', 'SOCKS5', 'QUIC']);

/**
 * The first entry of a PAC answer that this app can follow: `PROXY host:port` (an HTTP proxy)
 * or `DIRECT`. HTTPS, SOCKS and QUIC proxies are not supported: they are skipped with a notice,
 * and when nothing else is left the connection is made directly (the notice says so).
 */
export function parsePacAnswer(answer: string): { choice: ProxyChoice; notices: string[] } {
  const notices: string[] = [];
  const entries = answer
    .split(';')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const entry of entries) {
    const [kind = '', target = '', ...rest] = entry.split(/\s+/);
    const type = kind.toUpperCase();
    if (type === 'DIRECT') return { choice: { direct: true }, notices };
    if (type === 'PROXY' && rest.length === 0) {
      const url = proxyUrl(target);
      if (url) return { choice: { direct: false, url }, notices };
      notices.push(`The system proxy entry "${shown(entry)}" has no valid host:port; it is skipped.`);
      continue;
    }
    notices.push(
      UNSUPPORTED.has(type)
        ? `The system proxy "${shown(entry)}" is a ${type} proxy, which Dataset Sync does not support (only HTTP proxies, "PROXY host:port"); it is skipped.`
        : `The system proxy entry "${shown(entry)}" is not understood; it is skipped.`,
    );
  }
  if (notices.length > 0) notices.push('No usable proxy is left in the system settings: connecting directly. Set HTTPS_PROXY to an HTTP proxy if direct connections are blocked.');
  return { choice: { direct: true }, notices };
}

/** An entry as shown in a notice: anything that looks like `user:password@` hidden. */
function shown(entry: string): string {
  return redactCredentials(entry).replace(/[^\s@]+@/g, '***@');
}

function proxyUrl(hostPort: string): string | undefined {
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):\d{1,5}$/i.test(hostPort)) return undefined;
  try {
    const url = new URL(`http://${hostPort}`);
    return url.port === '' && !hostPort.endsWith(':80') ? undefined : url.href;
  } catch {
    return undefined;
  }
}

/**
 * A dispatcher that asks the system which proxy to use for each origin (once; the answer is
 * kept for the dispatcher's life, i.e. one sync) and sends the request through the dispatcher
 * made for that choice. A resolver that fails means a direct connection, with a notice.
 */
export class SystemProxyDispatcher extends Dispatcher {
  private readonly choices = new Map<string, Promise<Dispatcher>>();
  private readonly made = new Map<string, Dispatcher>();

  constructor(
    private readonly system: SystemProxy,
    /** The dispatcher for a proxy URL, or for no proxy (undefined). */
    private readonly dispatcherFor: (proxyUrl: string | undefined) => Dispatcher,
  ) {
    super();
  }

  private forChoice(choice: ProxyChoice): Dispatcher {
    const key = choice.direct ? 'DIRECT' : choice.url;
    let d = this.made.get(key);
    if (!d) {
      d = this.dispatcherFor(choice.direct ? undefined : choice.url);
      this.made.set(key, d);
    }
    return d;
  }

  private choose(origin: string): Promise<Dispatcher> {
    let chosen = this.choices.get(origin);
    if (!chosen) {
      const notice = (m: string) => this.system.onNotice?.(m);
      chosen = this.system.resolveProxy(`${origin}/`).then(
        (answer) => {
          const { choice, notices } = parsePacAnswer(String(answer));
          for (const n of notices) notice(`${origin}: ${n}`);
          return this.forChoice(choice);
        },
        (e: unknown) => {
          notice(`${origin}: the system proxy settings could not be read (${redactCredentials(String((e as Error)?.message ?? e))}); connecting directly.`);
          return this.forChoice({ direct: true });
        },
      );
      this.choices.set(origin, chosen);
    }
    return chosen;
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    void this.choose(String(opts.origin ?? '')).then((d) => {
      try {
        d.dispatch(opts, handler);
      } catch (e) {
        const legacy = handler as { onError?: (err: Error) => void };
        if (legacy.onError) legacy.onError(e as Error);
        else handler.onResponseError?.(undefined as never, e as Error);
      }
    });
    return true;
  }

  override async close(): Promise<void> {
    await Promise.all([...this.made.values()].map((d) => d.close()));
  }

  override async destroy(): Promise<void> {
    await Promise.all([...this.made.values()].map((d) => d.destroy()));
  }
}

let registered: SystemProxy | undefined;

/** Called once by the desktop app: every dispatcher made afterwards follows the system's proxy settings. */
export function useSystemProxy(system: SystemProxy | undefined): void {
  registered = system;
}

export function registeredSystemProxy(): SystemProxy | undefined {
  return registered;
}

// Who may talk to the web bridge. The bridge drives the real handlers (settings, the key, syncs
// that write to disk), so a browser page from anywhere else must get nothing:
// - Host must be 127.0.0.1 or localhost on the bridge's own port (a DNS-rebinding page sends
//   its own name as Host);
// - a WebSocket must come from the page's own origin (browsers always send Origin on one);
// - and carry the per-run random token, which only the URL the bridge printed holds.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { BRIDGE_PATH, BRIDGE_TOKEN_PARAM, MEDIA_PATH } from './protocol';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost'];

export function newBridgeToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison (digests first, so lengths never leak or throw). */
function sameToken(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export function allowedHosts(port: number): string[] {
  return LOOPBACK_NAMES.map((name) => `${name}:${port}`);
}

export function allowedOrigins(port: number): string[] {
  return allowedHosts(port).map((host) => `http://${host}`);
}

/** null when a plain HTTP request (the renderer's files) may be answered, else why not. */
export function refuseHttp(headers: IncomingHttpHeaders, port: number): string | null {
  if (!allowedHosts(port).includes(headers.host ?? '')) return 'Host is not this bridge (127.0.0.1 or localhost on its port).';
  return null;
}

/** null when a WebSocket upgrade may reach the handlers, else why not. */
export function refuseWebSocket(headers: IncomingHttpHeaders, requestUrl: string, port: number, token: string): string | null {
  const badHost = refuseHttp(headers, port);
  if (badHost) return badHost;
  if (!allowedOrigins(port).includes(headers.origin ?? '')) return 'Origin is not the bridge page.';
  let url: URL;
  try {
    url = new URL(requestUrl, 'http://bridge');
  } catch {
    return 'Unreadable request path.';
  }
  if (url.pathname !== BRIDGE_PATH) return 'No such WebSocket.';
  if (!sameToken(url.searchParams.get(BRIDGE_TOKEN_PARAM) ?? '', token)) return 'Missing or wrong bridge token.';
  return null;
}

/** The media URLs' path prefix on the bridge: the token is part of the path (an <img> or <video> cannot send a header). */
export function mediaPathPrefix(token: string): string {
  return `${MEDIA_PATH}${token}/`;
}

/**
 * For a request under MEDIA_PATH: null when it carries this run's token (then the media
 * handler decides what it may have), else why not. Compared in constant time.
 */
export function refuseMedia(pathname: string, token: string): string | null {
  const given = pathname.slice(MEDIA_PATH.length).split('/')[0] ?? '';
  return sameToken(given, token) ? null : 'Missing or wrong bridge token.';
}

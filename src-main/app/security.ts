// The pure, testable parts of the Electron shell's security: window options, the content
// security policy, the IPC sender check and the openExternal URL check. No Electron import,
// so handlers and tests can use these in plain Node.
import { pathToFileURL } from 'node:url';

/** The subset of BrowserWindowConstructorOptions we set; index.ts passes it to BrowserWindow. */
export interface SecureWindowOptions {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  show: boolean;
  title: string;
  backgroundColor: string;
  webPreferences: {
    preload: string;
    contextIsolation: true;
    sandbox: true;
    nodeIntegration: false;
    nodeIntegrationInWorker: false;
    nodeIntegrationInSubFrames: false;
    webSecurity: true;
    allowRunningInsecureContent: false;
    webviewTag: false;
    navigateOnDragDrop: false;
    spellcheck: false;
  };
}

export function createWindowOptions(preloadPath: string): SecureWindowOptions {
  return {
    width: 1200,
    height: 800,
    minWidth: 800,
    minHeight: 560,
    // Shown on 'ready-to-show' so the user never sees an empty white frame.
    show: false,
    title: 'Dataset Sync',
    backgroundColor: '#ffffff',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  };
}

/**
 * The renderer's Content-Security-Policy: only our own bundled scripts and styles, no eval,
 * no inline script, no remote connections (all network traffic goes through main), no
 * frames, no plugins. Set as a response header by main and as a <meta> tag in index.html.
 * 'self' in connect-src also covers the test bridge's same-origin WebSocket.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Inline style attributes (React style props, virtualised list offsets) are harmless
  // compared with script; the renderer's own <meta> CSP allows them too.
  "style-src 'self' 'unsafe-inline'",
  // Thumbnails and videos of the dataset's verified files come from the app's own protocol
  // (app/media/media-request.ts), or same-origin from the web bridge.
  "img-src 'self' data: dataset-media:",
  "media-src 'self' dataset-media:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "frame-src 'none'",
  "object-src 'none'",
  "worker-src 'none'",
].join('; ');

/**
 * The development server needs Vite's HMR socket and the React refresh preamble (inline
 * script); used only when the app runs from `electron-vite dev`, never in a packaged build.
 */
export function developmentContentSecurityPolicy(devServerUrl: string): string {
  const origin = new URL(devServerUrl).origin;
  const wsOrigin = origin.replace(/^http/, 'ws');
  return CONTENT_SECURITY_POLICY.replace("script-src 'self'", `script-src 'self' 'unsafe-inline' ${origin}`)
    .replace("style-src 'self' 'unsafe-inline'", `style-src 'self' 'unsafe-inline' ${origin}`)
    .replace("connect-src 'self'", `connect-src 'self' ${origin} ${wsOrigin}`);
}

export interface RendererLocation {
  /** Set when running against the Vite dev server (ELECTRON_RENDERER_URL). */
  devServerUrl?: string;
  /** Absolute path of the built renderer's index.html. */
  indexHtmlPath: string;
}

/**
 * True when an IPC message comes from our own renderer: the dev server's origin, or exactly
 * the file:// URL of our index.html (any query or hash). Anything else — a navigated-away
 * frame, an iframe, a file elsewhere on disk — is refused.
 */
export function isTrustedSenderUrl(frameUrl: string | undefined | null, location: RendererLocation): boolean {
  if (!frameUrl) return false;
  let url: URL;
  try {
    url = new URL(frameUrl);
  } catch {
    return false;
  }
  if (location.devServerUrl) {
    let dev: URL;
    try {
      dev = new URL(location.devServerUrl);
    } catch {
      return false;
    }
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin === dev.origin) return true;
  }
  if (url.protocol !== 'file:') return false;
  const expected = pathToFileURL(location.indexHtmlPath);
  return url.pathname === expected.pathname && url.host === expected.host;
}

/** Navigation inside the window is never allowed, except reloading our own renderer. */
export function isAllowedNavigation(targetUrl: string, location: RendererLocation): boolean {
  return isTrustedSenderUrl(targetUrl, location);
}

export class UnsafeExternalUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeExternalUrlError';
  }
}

/**
 * Checks a URL before it goes to shell.openExternal: https only (no file:, javascript:,
 * custom protocol handlers), no embedded credentials, a real host name. Returns the
 * normalised URL.
 */
export function checkExternalUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new UnsafeExternalUrlError(`"${input.slice(0, 200)}" is not a valid URL.`);
  }
  if (url.protocol !== 'https:') throw new UnsafeExternalUrlError(`Only https:// links can be opened, not ${url.protocol}`);
  if (url.username || url.password) throw new UnsafeExternalUrlError('Links with a user name or password are not opened.');
  if (!url.hostname || /[\s]/.test(url.hostname)) throw new UnsafeExternalUrlError('The link has no valid host name.');
  return url.toString();
}

export function isSafeExternalUrl(input: string): boolean {
  try {
    checkExternalUrl(input);
    return true;
  } catch {
    return false;
  }
}

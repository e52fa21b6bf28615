// The web bridge (`npm run dev:web` and the browser tests): serves the built renderer over
// loopback HTTP and answers the RendererApi contract over a WebSocket at /bridge with the REAL
// main-process handlers (real engine, real disk, real service). Only the Electron transport is
// replaced, so Chromium e2e tests exercise everything except ipcMain/contextBridge themselves.
// Admission (admission.ts): loopback Host on its port for every request; for the WebSocket
// also the page's own Origin and the per-run token, checked before any handler can run.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as esbuild } from 'esbuild';
import { WebSocketServer, type WebSocket } from 'ws';
import { createMainServices, type MainServices } from '../../src-main/ipc/services';
import { CONTENT_SECURITY_POLICY } from '../../src-main/app/security';
import type { EventChannel, EventChannels, IpcResult } from '../../src-shared/ipc-contract';
import { isInvokeChannel } from '../../src-shared/ipc-channels';
import { createMemoryStore } from '../../src-main/secrets/memory-store';
import type { SecretStore } from '../../src-main/secrets/secret-store';
import { createConfSettingsStore } from '../../src-main/settings/conf-settings';
import { mediaPathPrefix, newBridgeToken, refuseHttp, refuseMedia, refuseWebSocket } from './admission';
import { BRIDGE_CLIENT_PATH, MEDIA_PATH, BRIDGE_TOKEN_PARAM, type BridgePush, type BridgeRequest, type BridgeResponse } from './protocol';

export interface StartBridgeOptions {
  /** The built renderer (buildRenderer's outDir): index.html and assets. */
  rendererDir: string;
  /** Where settings are written (conf, settings.json). */
  settingsDir: string;
  /** Any secret store (e.g. the real keychain); default: a fresh in-memory store. */
  secrets?: SecretStore;
  /** Keys put into the default memory store up front, by base URL (pre-connected app). */
  initialKeys?: Record<string, string>;
  /** Preset base URL written to settings before the first connection:get. */
  baseUrl?: string;
  /** What the native folder picker would answer (null = cancelled). */
  pickFolderAnswer: () => string | null;
  secretStoreWarning?: string;
  batchIntervalMs?: number;
  port?: number;
}

export interface Bridge {
  /** The page to open: carries this run's token in its fragment. */
  url: string;
  /** The bridge's origin without the token (what an outsider could guess). */
  origin: string;
  token: string;
  services: MainServices;
  /** What main would have shown as desktop notifications / opened / revealed. */
  notifications: Array<{ title: string; body: string }>;
  openedExternal: string[];
  shownInFolder: string[];
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

let bridgeClientBundle: Promise<string> | null = null;

/** The browser-side bridge script, bundled once per process from bridge-client.ts. */
export function bundleBridgeClient(): Promise<string> {
  bridgeClientBundle ??= esbuild({
    entryPoints: [fileURLToPath(new URL('./client.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2022',
    platform: 'browser',
  }).then((r) => {
    const file = r.outputFiles[0];
    if (!file) throw new Error('esbuild produced no output for bridge-client.ts');
    return file.text;
  });
  return bridgeClientBundle;
}

/** Puts the bridge script before the renderer's first module script (classic scripts run first). */
export function injectBridgeClient(html: string): string {
  const tag = `<script src="${BRIDGE_CLIENT_PATH}"></script>`;
  const at = html.search(/<script\b[^>]*type=["']module["']/i);
  if (at >= 0) return html.slice(0, at) + tag + html.slice(at);
  return html.replace(/<\/head>/i, `${tag}</head>`);
}

async function serveStatic(rendererDir: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const root = resolve(rendererDir);
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://bridge').pathname);
  } catch {
    res.writeHead(400).end('Bad path');
    return;
  }
  if (pathname === BRIDGE_CLIENT_PATH) {
    res.writeHead(200, { 'Content-Type': CONTENT_TYPES['.js'], 'Cache-Control': 'no-store' }).end(await bundleBridgeClient());
    return;
  }
  let file = resolve(root, `.${pathname}`);
  // Never serve outside the renderer folder (.., encoded slashes, absolute paths).
  if (file !== root && !file.startsWith(root + sep)) {
    res.writeHead(403).end('Forbidden');
    return;
  }
  const info = await stat(file).catch(() => null);
  if (!info || info.isDirectory()) {
    // Client-side routes fall back to the app; missing assets are real 404s.
    if (info?.isDirectory() || extname(pathname) === '') file = join(root, 'index.html');
    else {
      res.writeHead(404).end('Not found');
      return;
    }
  }
  const type = CONTENT_TYPES[extname(file)] ?? 'application/octet-stream';
  const headers = { 'Content-Type': type, 'Cache-Control': 'no-store', 'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'X-Content-Type-Options': 'nosniff' };
  if (file.endsWith('.html')) {
    res.writeHead(200, headers).end(injectBridgeClient(await readFile(file, 'utf8')));
  } else {
    res.writeHead(200, headers).end(await readFile(file));
  }
}

/** Thumbnails and videos: this run's token in the path, then the same handler as the app's dataset-media:// protocol. */
async function serveMedia(services: MainServices, token: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const pathname = (req.url ?? '/').split('?')[0] ?? '/';
  const refused = refuseMedia(pathname, token);
  if (refused) {
    res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8' }).end(refused);
    return;
  }
  const answer = await services.media.handle({ url: `http://bridge${req.url ?? '/'}`, method: req.method ?? 'GET', headers: { range: req.headers.range } });
  res.writeHead(answer.status, answer.headers);
  if (!answer.body) {
    res.end();
    return;
  }
  answer.body.on('error', () => res.destroy());
  res.on('close', () => answer.body?.destroy());
  answer.body.pipe(res);
}

export async function startBridge(options: StartBridgeOptions): Promise<Bridge> {
  const sockets = new Set<WebSocket>();
  const notifications: Bridge['notifications'] = [];
  const openedExternal: string[] = [];
  const shownInFolder: string[] = [];

  const emit = <C extends EventChannel>(event: C, payload: EventChannels[C]) => {
    const push: BridgePush<C> = { event, payload };
    const text = JSON.stringify(push);
    for (const socket of sockets) if (socket.readyState === socket.OPEN) socket.send(text);
  };

  const token = newBridgeToken();
  const settings = createConfSettingsStore({ cwd: options.settingsDir });
  if (options.baseUrl) settings.setBaseUrl(options.baseUrl);
  const services = createMainServices({
    secrets: options.secrets ?? createMemoryStore(options.initialKeys),
    ...(options.secretStoreWarning ? { secretStoreWarning: options.secretStoreWarning } : {}),
    settings,
    pickFolder: async () => options.pickFolderAnswer(),
    showItemInFolder: (path) => void shownInFolder.push(path),
    // No file manager behind a browser tab: "Show in folder" of a set or file answers its path only.
    canShowInFolder: false,
    mediaPathPrefix: mediaPathPrefix(token),
    mediaBaseUrl: mediaPathPrefix(token),
    openExternal: async (url) => void openedExternal.push(url),
    notify: (title, body) => void notifications.push({ title, body }),
    emit,
    ...(options.batchIntervalMs ? { batchIntervalMs: options.batchIntervalMs } : {}),
  });

  let port = 0; // known once listening; nothing is answered before that
  const server = createServer((req, res) => {
    const refused = refuseHttp(req.headers, port);
    if (refused || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(refused ? 403 : 405, { 'Content-Type': 'text/plain; charset=utf-8' }).end(refused ?? 'Only GET.');
      return;
    }
    const pathname = (req.url ?? '/').split('?')[0] ?? '/';
    const served = pathname.startsWith(MEDIA_PATH) ? serveMedia(services, token, req, res) : serveStatic(options.rendererDir, req, res);
    served.catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(`Bridge error: ${(e as Error).message}`);
    });
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    const refused = refuseWebSocket(req.headers, req.url ?? '/', port, token);
    if (refused) {
      socket.end(`HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(refused)}\r\n\r\n${refused}`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (data) => {
      void answer(ws, String(data));
    });
  });

  async function answer(ws: WebSocket, text: string): Promise<void> {
    let request: BridgeRequest;
    try {
      request = JSON.parse(text) as BridgeRequest;
      if (typeof request.id !== 'number') throw new Error('missing id');
    } catch {
      return; // Not a bridge message: nothing to answer to.
    }
    let result: IpcResult<unknown>;
    if (!isInvokeChannel(request.channel)) {
      result = { ok: false, error: { kind: 'invalid_argument', message: `Unknown channel "${String(request.channel).slice(0, 80)}".` } };
    } else {
      result = await services.handlers[request.channel](request.arg);
    }
    const response: BridgeResponse = { id: request.id, result };
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(response));
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolveListen());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('The bridge server has no TCP address.');
  port = address.port;
  const origin = `http://127.0.0.1:${port}`;

  let closed: Promise<void> | null = null;
  return {
    url: `${origin}/#${BRIDGE_TOKEN_PARAM}=${token}`,
    origin,
    token,
    services,
    notifications,
    openedExternal,
    shownInFolder,
    close: () =>
      (closed ??= (async () => {
        await services.shutdown();
        for (const socket of sockets) socket.terminate();
        wss.close();
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
      })()),
  };
}

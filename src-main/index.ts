// Electron bootstrap, kept thin: single instance, one secure window, IPC wiring with a
// sender check, menu, notifications and quit handling. Everything testable lives in
// app/ (security, services) and ipc/ (handlers), which never import Electron.
import { app, BrowserWindow, dialog, ipcMain, Menu, Notification, protocol, safeStorage, session, shell, type IpcMainInvokeEvent, type MenuItemConstructorOptions } from 'electron';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { EventChannel, EventChannels } from '../src-shared/ipc-contract';
import { INVOKE_CHANNELS } from '../src-shared/ipc-channels';
import { useSystemProxy } from './api/system-proxy';
import { MEDIA_SCHEME } from './app/media/media-request';
import { createMainServices, type MainServices } from './ipc/services';
import {
  CONTENT_SECURITY_POLICY,
  createWindowOptions,
  developmentContentSecurityPolicy,
  isAllowedNavigation,
  isSafeExternalUrl,
  isTrustedSenderUrl,
  type RendererLocation,
} from './app/security';
import { chooseSecretStore, type ChosenSecretStore } from './secrets/choose-store';
import { createMemoryStore } from './secrets/memory-store';
import { createElectronSettingsStore } from './settings/electron-settings';
import type { SettingsStore } from './settings/settings-store';

const here = fileURLToPath(new URL('.', import.meta.url));
const preloadPath = join(here, '../preload/preload.js');
const rendererLocation: RendererLocation = {
  indexHtmlPath: join(here, '../renderer/index.html'),
  ...(!app.isPackaged && process.env.ELECTRON_RENDERER_URL ? { devServerUrl: process.env.ELECTRON_RENDERER_URL } : {}),
};
// The window icon on Linux (macOS and Windows take theirs from the app bundle): packaging puts
// it beside the app's resources (package.json build.extraResources); unpackaged, resources/.
const windowIconPath = app.isPackaged ? join(process.resourcesPath, 'icon.png') : join(app.getAppPath(), 'resources', 'icons', '512x512.png');
const demoMode = process.argv.includes('--demo') || process.env.DATASET_SYNC_DEMO === '1';
// Set by electron.vite.config.ts: true in dev and demo builds only. In a production build the
// demo branch below is dead code, so the reference service (admin client, fault switches) is
// not bundled into the shipped app at all.
declare const __DATASET_SYNC_DEMO_BUILD__: boolean;

let mainWindow: BrowserWindow | null = null;
let services: MainServices | null = null;
let stopDemoService: (() => Promise<void>) | null = null;
let quitting = false;

// The dataset's thumbnails and videos (app/media/media-request.ts). Privileged before ready, as
// Electron requires: standard (a host and real paths), secure (like https: no mixed-content
// block), stream (so <video> can seek with Range requests), supportFetchAPI.
protocol.registerSchemesAsPrivileged([{ scheme: MEDIA_SCHEME, privileges: { standard: true, secure: true, stream: true, supportFetchAPI: true } }]);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app.whenReady().then(start).catch((e: unknown) => {
    console.error('Dataset Sync failed to start', e);
    app.exit(1);
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('before-quit', (event) => {
    // Cancel running syncs and let them settle (partials stay for resume), then quit for real.
    if (quitting || !services) return;
    event.preventDefault();
    quitting = true;
    const current = services;
    void (async () => {
      await current.shutdown().catch((e: unknown) => console.error('Shutdown failed', e));
      await stopDemoService?.().catch(() => undefined);
      app.quit();
    })();
  });
}

function emit<C extends EventChannel>(channel: C, payload: EventChannels[C]): void {
  if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(channel, payload);
}

function notify(title: string, body: string): void {
  if (Notification.isSupported()) new Notification({ title, body }).show();
}

async function pickFolder(): Promise<string | null> {
  const options: Electron.OpenDialogOptions = { title: 'Choose the dataset folder', properties: ['openDirectory', 'createDirectory'] };
  const result = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
  return result.canceled ? null : (result.filePaths[0] ?? null);
}

/** Demo: the reference service in-process; its first client's key lives in memory only. */
async function prepareDemo(userData: string): Promise<{ chosen: ChosenSecretStore; settings: SettingsStore }> {
  if (!__DATASET_SYNC_DEMO_BUILD__) throw new Error('This build has no demo service: start the demo with `npm run demo`.');
  const { startReferenceService } = await import('../src-service/index');
  const service = await startReferenceService();
  stopDemoService = () => service.close();
  const client = service.clients[0];
  if (!client) throw new Error('The demo service has no client account.');
  // Demo settings live apart so the demo never touches the user's real configuration.
  const settings = createElectronSettingsStore({ cwd: join(userData, 'demo') });
  settings.setBaseUrl(service.deliveryBaseUrl);
  const store = createMemoryStore({ [service.deliveryBaseUrl]: client.apiKey });
  return { chosen: { store, warning: 'Demo mode: the demo account key is kept in memory only.' }, settings };
}

async function start(): Promise<void> {
  const userData = app.getPath('userData');
  let chosen: ChosenSecretStore;
  let settings: SettingsStore;
  if (demoMode) {
    ({ chosen, settings } = await prepareDemo(userData));
  } else {
    chosen = await chooseSecretStore({ safeStorage, safeStorageFile: join(userData, 'keys.json') });
    settings = createElectronSettingsStore();
  }

  services = createMainServices({
    secrets: chosen.store,
    ...(chosen.warning ? { secretStoreWarning: chosen.warning } : {}),
    settings,
    pickFolder,
    showItemInFolder: (path) => shell.showItemInFolder(path),
    openExternal: (url) => shell.openExternal(url),
    notify,
    emit,
  });

  installSecurityHooks();
  // Every API client follows the system's proxy settings (PAC, WPAD, manual), unless HTTPS_PROXY/HTTP_PROXY are set.
  // What it cannot follow (an HTTPS/SOCKS proxy, unreadable settings) is said in the window, once per app session.
  const proxyNotices = new Set<string>();
  useSystemProxy({
    resolveProxy: (url) => session.defaultSession.resolveProxy(url),
    onNotice: (message) => {
      console.warn(message);
      if (proxyNotices.has(message)) return;
      proxyNotices.add(message);
      emit('notice', { level: 'warning', message: `System proxy settings: ${message}` });
    },
  });
  registerIpc(services);
  registerMediaProtocol(services);
  Menu.setApplicationMenu(buildMenu());
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
}

function installSecurityHooks(): void {
  const csp = rendererLocation.devServerUrl ? developmentContentSecurityPolicy(rendererLocation.devServerUrl) : CONTENT_SECURITY_POLICY;
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
  });
  // The app needs no camera, microphone, notifications-from-page, geolocation... Only writing text
  // to the clipboard is allowed (a failed file's Copy button; Chromium asks for it before each
  // navigator.clipboard.writeText, and only during a click). Reading the clipboard stays denied.
  session.defaultSession.setPermissionRequestHandler((_wc, permission, callback) => callback(permission === 'clipboard-sanitized-write'));

  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event, url) => {
      if (!isAllowedNavigation(url, rendererLocation)) event.preventDefault();
    });
    contents.on('will-redirect', (event, url) => {
      if (!isAllowedNavigation(url, rendererLocation)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      // Links the page tries to open go to the system browser, and only validated https ones.
      if (isSafeExternalUrl(url)) void shell.openExternal(url);
      return { action: 'deny' };
    });
  });
}

function registerIpc(current: MainServices): void {
  for (const channel of INVOKE_CHANNELS) {
    const handler = current.handlers[channel];
    ipcMain.handle(channel, async (event: IpcMainInvokeEvent, arg: unknown) => {
      if (!isTrustedSenderUrl(event.senderFrame?.url, rendererLocation)) {
        return { ok: false, error: { kind: 'invalid_argument', message: 'IPC refused: the message did not come from the app window.' } };
      }
      return handler(arg);
    });
  }
}

/** dataset-media://local/... answered by the same handler the web bridge uses: only verified files of the chosen datasets. */
function registerMediaProtocol(current: MainServices): void {
  session.defaultSession.protocol.handle(MEDIA_SCHEME, async (request) => {
    const answer = await current.media.handle({ url: request.url, method: request.method, headers: { range: request.headers.get('range') } });
    const body = answer.body ? (Readable.toWeb(answer.body) as unknown as ReadableStream<Uint8Array>) : null;
    return new Response(body, { status: answer.status, headers: answer.headers });
  });
}

function createWindow(): void {
  const window = new BrowserWindow(createWindowOptions(preloadPath));
  if (process.platform === 'linux') window.setIcon(windowIconPath);
  mainWindow = window;
  window.once('ready-to-show', () => window.show());
  window.on('closed', () => {
    if (mainWindow === window) mainWindow = null;
  });
  if (rendererLocation.devServerUrl) void window.loadURL(rendererLocation.devServerUrl);
  else void window.loadFile(rendererLocation.indexHtmlPath);
}

function buildMenu(): Menu {
  const template: MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' } as MenuItemConstructorOptions] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [{ role: 'reload' }, ...(app.isPackaged ? [] : [{ role: 'toggleDevTools' } as MenuItemConstructorOptions]), { type: 'separator' }, { role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' }],
    },
    { role: 'windowMenu' },
  ];
  return Menu.buildFromTemplate(template);
}

// One browser end-to-end setup: the built renderer behind the web bridge (real handlers,
// engine and disk), the reference service over loopback, and a Chromium page. Tests keep
// their own state; this only starts and stops the parts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { testRenderer } from './renderer-build';
import { startBridge, type Bridge } from '../../scripts/web-bridge/server';
import { startReferenceService } from '../../src-service/index';
import { launchChromium } from './chromium';

export interface BrowserApp {
  root: string;
  service: Awaited<ReturnType<typeof startReferenceService>>;
  bridge: Bridge;
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

export interface BrowserAppOptions {
  name: string;
  service: Parameters<typeof startReferenceService>[0];
  /** Pre-connect the first client's delivery key. */
  connected: boolean;
  pickFolderAnswer: (root: string) => string | null;
  viewport: { width: number; height: number };
}

export async function startBrowserApp(options: BrowserAppOptions): Promise<BrowserApp> {
  const root = await mkdtemp(join(tmpdir(), `dataset-sync-e2e-${options.name}-`));
  const [rendererDir, service] = await Promise.all([testRenderer(), startReferenceService({ ...options.service, dataDir: join(root, 'media') })]);
  const preconnected = options.connected ? { baseUrl: service.deliveryBaseUrl, initialKeys: { [service.deliveryBaseUrl]: service.clients[0]!.apiKey } } : {};
  const bridge = await startBridge({ rendererDir, settingsDir: join(root, 'settings'), pickFolderAnswer: () => options.pickFolderAnswer(root), ...preconnected });
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: options.viewport, colorScheme: 'light' })).newPage();
  page.on('pageerror', (e) => console.error('[renderer error]', e.message));
  return {
    root,
    service,
    bridge,
    browser,
    page,
    async close() {
      await browser.close();
      await bridge.close();
      await service.close();
      // A sync or a thumbnail still finishing after the bridge closed can add a file while rm walks the tree (ENOTEMPTY): retry.
      await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    },
  };
}

/**
 * Closes every notice shown, one at a time (a list of locators taken first would point past the
 * end once the first closes).
 */
export async function dismissNotices(page: Page): Promise<void> {
  const dismiss = page.getByRole('button', { name: 'Dismiss notice' });
  while ((await dismiss.count()) > 0) await dismiss.first().click();
}

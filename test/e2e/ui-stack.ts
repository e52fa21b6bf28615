// What a browser end-to-end test of the delivery UI runs on: the built renderer in real Chromium,
// the browser test bridge (real main-process handlers, engine and disk) and the reference service
// over loopback HTTP, all under one temporary folder whose `dataset` the folder picker answers.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildRenderer } from '../../scripts/web-bridge/build-renderer';
import { startBridge, type Bridge } from '../../scripts/web-bridge/server';
import { startReferenceService } from '../../src-service/index';
import { launchChromium } from '../support/chromium';

export interface UiStack {
  root: string;
  /** The folder "Choose folder…" picks. */
  datasetDir: string;
  service: Awaited<ReturnType<typeof startReferenceService>>;
  bridge: Bridge;
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

export async function startUiStack(opts: {
  prefix: string;
  service: { seed: number; sets: number; fileSize: number; slots?: number };
  viewport: { width: number; height: number };
}): Promise<UiStack> {
  const root = await mkdtemp(join(tmpdir(), opts.prefix));
  const datasetDir = join(root, 'dataset');
  const [rendererDir, service] = await Promise.all([buildRenderer(join(root, 'renderer')), startReferenceService({ ...opts.service, dataDir: join(root, 'media') })]);
  const bridge = await startBridge({ rendererDir, settingsDir: join(root, 'settings'), pickFolderAnswer: () => datasetDir });
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: opts.viewport, colorScheme: 'light' })).newPage();
  page.on('pageerror', (e) => console.error('[renderer error]', e.message));
  return {
    root,
    datasetDir,
    service,
    bridge,
    browser,
    page,
    async close() {
      await browser.close();
      await bridge.close();
      await service.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

// The window's points of the third user's-eye review (issue 23), in real Chromium through the
// web bridge (real handlers, engine and disk) and the reference service, at 800 and 1280 px:
// a chosen folder is checked at once, status reads the same everywhere, notices, navigation and
// identity, and narrow windows.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bridge } from '../../scripts/web-bridge/server';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';

describe.each([800, 1280])('at %i px', (width) => {
  let app: BrowserApp;
  let root: string;
  let service: BrowserApp['service'];
  let bridge: Bridge;
  let page: Page;
  /** What "Choose folder…" answers next. */
  let picked = '';

  beforeAll(async () => {
    app = await startBrowserApp({ name: `round3-${width}`, service: { seed: 23, sets: 4, fileSize: 24 * 1024, slots: 3 }, connected: true, pickFolderAnswer: () => picked, viewport: { width, height: 900 } });
    ({ root, service, bridge, page } = app);
  });

  afterAll(async () => {
    await app?.close();
  });

  const main = () => service.clients[0]!.collections[0]!;
  const second = () => service.clients[0]!.collections[1]!;

  async function openSyncTab(collectionId: number): Promise<void> {
    await page.goto(bridge.url);
    await page.reload();
    await page.locator(`[data-collection-id="${collectionId}"]`).getByRole('button').first().click();
    await page.getByRole('tab', { name: 'Sync' }).click();
  }

  async function choose(folder: string): Promise<void> {
    picked = folder;
    await page.getByRole('button', { name: 'Choose folder…' }).click();
  }

  async function syncOnce(): Promise<void> {
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    await expect.poll(() => page.getByTestId('sync-result').textContent(), { timeout: 45_000 }).toMatch(/Last sync: \d+ downloaded, \d+ up to date, 0 failed\./);
  }

  it('a folder that holds another collection, lies inside a dataset or cannot be written to is refused in words at once', { timeout: 120_000 }, async () => {
    const secondFolder = join(root, 'second');
    await openSyncTab(second());
    await choose(secondFolder);
    await expect.poll(() => page.getByTestId('dataset-folder').textContent()).toBe(secondFolder);
    await syncOnce();

    await openSyncTab(main());
    const alert = page.locator('.dataset-folder [role="alert"]');
    await choose(secondFolder);
    await expect.poll(() => alert.textContent()).toBe(`No folder was chosen. ${secondFolder} is already the dataset folder of collection ${second()}. Each collection needs its own folder.`);
    await choose(join(secondFolder, 'sets'));
    await expect.poll(() => alert.textContent()).toMatch(/is inside the dataset folder of collection \d+/);
    await choose(`${secondFolder}.consents`);
    await expect.poll(() => alert.textContent()).toMatch(/is inside the consents folder of collection \d+/);
    await choose('/proc/not-writable');
    await expect.poll(() => alert.textContent()).toMatch(/^No folder was chosen\. The app cannot write to \/proc .+Choose a folder you can write to\.$/);
    // Nothing of the other collection is shown as this one's.
    expect(await page.getByTestId('dataset-folder').textContent()).toBe('No folder chosen yet');
    expect(await page.getByTestId('dataset-card').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Verify' }).isDisabled()).toBe(true);

    // An empty folder is taken, and the error goes.
    const mainFolder = join(root, 'main');
    await choose(mainFolder);
    await expect.poll(() => page.getByTestId('dataset-folder').textContent()).toBe(mainFolder);
    expect(await alert.count()).toBe(0);
  });
});

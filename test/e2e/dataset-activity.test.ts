// End-to-end (real Chromium through the web bridge, real engine, reference service, real disk):
// history per folder, the Files table after a reload, the dataset card, activity on other
// screens (header, list row, Recruiter workspace), in-app messages, auto-sync's next round,
// and focus staying on the control that started a sync.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Bridge } from '../../scripts/web-bridge/server';
import type { Page } from 'playwright-core';
import { dismissNotices, startBrowserApp, type BrowserApp } from '../support/browser-app';
import { docScreenshot } from '../support/doc-screenshot';

const SETS = 6;

let app: BrowserApp;
let root: string;
let folder: string;
let service: BrowserApp['service'];
let bridge: Bridge;
let page: Page;

beforeAll(async () => {
  app = await startBrowserApp({
    name: 'card',
    service: { seed: 11, sets: SETS, fileSize: 32 * 1024 },
    connected: true,
    pickFolderAnswer: () => folder,
    viewport: { width: 1280, height: 900 },
  });
  ({ root, service, bridge, page } = app);
  folder = join(root, 'first');
});

afterAll(async () => {
  await app?.close();
});

async function openSyncTab(collectionId: number): Promise<void> {
  await page.locator(`[data-collection-id="${collectionId}"]`).getByRole('button').first().click();
  await page.getByRole('tab', { name: 'Sync' }).click();
}

describe('dataset card, per-folder history and activity', () => {
  it('keeps history per folder, lists the last run after a reload, and fills the dataset card', async () => {
    const collectionId = service.clients[0]!.collections[0]!;
    await page.goto(bridge.url);
    await openSyncTab(collectionId);
    // No folder yet: no runs, not "Loading history…" forever.
    await page.getByText('No syncs yet.').waitFor();

    await page.getByRole('button', { name: 'Folder…' }).click();
    await expect.poll(() => page.getByTestId('dataset-folder').textContent()).toBe(folder);
    await page.getByText('No syncs yet.').waitFor();
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    const result = page.getByTestId('sync-result');
    await expect.poll(() => result.textContent(), { timeout: 45_000 }).toMatch(/Last sync: \d+ downloaded, 0 up to date, 0 failed\./);
    const downloaded = Number(/Last sync: (\d+) downloaded/.exec((await result.textContent()) ?? '')?.[1]);
    // The in-app message with counts.
    await page.locator('.toast', { hasText: `finished: ${downloaded} downloaded, 0 up to date, 0 failed` }).waitFor();
    await expect.poll(() => page.locator('table.history tbody tr').count()).toBe(1);

    // The card: files and bytes on disk, free space, consents folder, what changed.
    const card = page.getByTestId('dataset-card');
    await expect.poll(() => page.getByTestId('card-on-disk').textContent()).toMatch(new RegExp(`^${downloaded} files · `));
    expect(await page.getByTestId('card-free').textContent()).toMatch(/\d+(\.\d+)? [KMGT]?i?B/);
    expect(await page.getByTestId('card-consents').textContent()).toBe(`${folder}.consents`);
    await expect.poll(() => page.getByTestId('card-changes').textContent()).toMatch(/^New sets: (\d+, ){5}\d+ · edited: none · left accepted: none$/);
    expect(await page.getByTestId('card-verified').textContent()).toBe('never');
    await expect.poll(() => page.getByTestId('card-to-download').textContent()).toBe('no new accepted sets (edited ones are known while a sync runs)');
    await card.getByRole('button', { name: 'Show consents folder' }).click();
    await expect.poll(() => bridge.shownInFolder.at(-1)).toBe(`${folder}.consents`);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.getByTestId('card-verified').textContent()).toMatch(/intact$/);
    await dismissNotices(page);
    await page.getByRole('heading', { name: 'Dataset on disk' }).scrollIntoViewIfNeeded();
    await docScreenshot(page, 'dataset-card');

    // After a reload the Files table lists the last run's files, not "No files yet".
    await page.reload();
    await openSyncTab(collectionId);
    await expect.poll(() => result.textContent()).toContain(`Last sync: ${downloaded} downloaded`);
    await expect.poll(() => page.getByLabel('Filter files by state').locator('option[value="verified"]').textContent()).toBe(`Verified (${downloaded})`);
    expect(await page.getByText('No files yet').count()).toBe(0);

    // A new folder has its own (empty) history: the old folder's runs are not merged in.
    folder = join(root, 'second');
    await page.getByRole('button', { name: 'Folder…' }).click();
    await expect.poll(() => page.getByTestId('dataset-folder').textContent()).toBe(folder);
    await page.getByText('No syncs yet.').waitFor();
    expect(await page.locator('table.history tbody tr').count()).toBe(0);
    expect(await result.count()).toBe(0);
    await expect.poll(() => page.getByTestId('card-on-disk').textContent()).toMatch(/^0 files/);
    expect(await page.getByTestId('card-consents').textContent()).toBe(`${folder}.consents`);
  });

  it('shows a running sync in the header, on the list row and in the Recruiter workspace; focus stays on Cancel', async () => {
    const collectionId = service.clients[0]!.collections[0]!;
    // Every file body stalls: the sync stays in flight until cancelled.
    await service.admin.addFault({ api: 'delivery', path: '^/files/' }, { type: 'stall', afterBytes: 8 * 1024, ms: 60_000 });
    const syncButton = page.getByRole('button', { name: 'Sync', exact: true });
    await syncButton.focus();
    await page.keyboard.press('Enter');
    const cancel = page.getByRole('button', { name: 'Cancel' });
    await cancel.waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    // Still to download is known while it runs (an estimate while sets are listed), and fits on the disk.
    await expect.poll(() => page.getByTestId('card-to-download').textContent(), { timeout: 20_000 }).toMatch(/^(\d+(\.\d+)? [KMG]i?B|about \d+(\.\d+)? [KMG]i?B \(estimated while sets are listed\))$/);

    const chip = page.getByTestId('header-activity');
    await chip.waitFor();
    expect(await chip.textContent()).toMatch(/^Syncing .+· (\d+%|starting…|\d+ of \d+ files)$/);
    await page.getByRole('button', { name: '← Collections' }).click();
    const row = page.locator(`[data-collection-id="${collectionId}"]`);
    await row.getByTestId('row-activity').waitFor();
    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('button', { name: 'Recruiter' }).click();
    await chip.waitFor();
    await docScreenshot(page, 'header-activity');

    // The chip leads back to the running sync; cancel it there.
    await chip.click();
    await cancel.click();
    await page.locator('.toast', { hasText: 'cancelled; partial downloads are kept' }).waitFor();
    await expect.poll(() => chip.count()).toBe(0);

    // A sync that ends while the list is open updates its "Last sync" line.
    await service.admin.clearFaults();
    await syncButton.click();
    await page.getByRole('button', { name: '← Collections' }).click();
    await expect.poll(() => row.getByTestId('last-sync').textContent(), { timeout: 45_000 }).toMatch(/^Synced .+ · \d+ downloaded$/);
    expect(await row.getByTestId('row-activity').count()).toBe(0);
    expect(bridge.notifications.some((n) => n.title === 'New files synced')).toBe(true);
  });

  it('"Sync all" syncs every collection with a folder, one after the other', async () => {
    const [first, second] = service.clients[0]!.collections;
    expect(second).toBeDefined();
    await bridge.services.datasets.choose(second!, join(root, 'other-collection'));
    // The previous test ended on the collections list.
    await page.getByRole('heading', { name: 'Collections', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Refresh' }).click();
    const clickedAt = new Date().toISOString();
    await page.getByRole('button', { name: 'Sync all' }).click();
    await page.getByTestId('sync-all-status').waitFor();
    const otherRow = page.locator(`[data-collection-id="${second}"]`);
    await expect.poll(() => otherRow.getByTestId('last-sync').textContent(), { timeout: 60_000 }).toMatch(/^Synced .+ · \d+ downloaded$/);
    await bridge.services.syncAll.settled(bridge.services.datasets.ref(first!).accountId);
    const [a] = await bridge.services.datasets.history(first!);
    const [b] = await bridge.services.datasets.history(second!);
    expect(a!.startedAt >= clickedAt && b!.startedAt >= clickedAt).toBe(true);
    // One after the other (in id order): the later one started once the earlier had finished.
    const [earlier, later] = first! < second! ? [a!, b!] : [b!, a!];
    expect(later.startedAt >= earlier.finishedAt).toBe(true);
    expect([a, b].map((h) => h?.kind === 'verify' ? 'verify' : h?.exitCode)).toEqual([0, 0]);
  });

  it('says that auto-sync is on and when it runs next', async () => {
    expect(await page.getByTestId('autosync-next').count()).toBe(0);
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByLabel('Automatic sync').selectOption('15');
    const next = page.getByTestId('autosync-next');
    await expect.poll(() => next.textContent()).toMatch(/^Auto-sync on · next /);
  });
});

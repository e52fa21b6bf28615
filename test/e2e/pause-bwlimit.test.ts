// End-to-end (real Chromium through the web bridge, real engine, reference service, real disk):
// the bandwidth limit set in Settings holds a sync's measured rate near the cap, and Pause in
// the sync panel stops the bytes on disk (the panel, its Sync button, progress line and rows in
// flight, and the header say Paused) until Resume,
// which finishes without walking the sets again (the service's own request counts say so).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncSummary } from '../../src-shared/sync-events';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';
import { setPageRequests } from '../support/walk-requests';
import { bytesUnder, openSyncTabWithFolder } from './sync-tab';

const MiB = 1024 * 1024;
const SETS = 16;
const SLOTS = 2;
const FILE_SIZE = MiB / 2;
const TOTAL = SETS * SLOTS * FILE_SIZE; // 16 MiB: about 16 s at 1 MiB/s, room to pause on a busy machine
const CAP = MiB; // 1 MiB/s, typed as "1" in the MiB/s field (the unit of --bwlimit 1M)

let app: BrowserApp;
let page: Page;
let folder: string;
let collectionId: number;

beforeAll(async () => {
  app = await startBrowserApp({
    name: 'pause',
    service: { seed: 23, sets: SETS, fileSize: FILE_SIZE, slots: SLOTS },
    connected: true,
    pickFolderAnswer: () => folder,
    viewport: { width: 1280, height: 900 },
  });
  page = app.page;
  collectionId = app.service.clients[0]!.collections[0]!;
}, 120_000);

afterAll(async () => {
  await app?.close();
});

const run = promisify(execFile);

/** A fresh folder for the main collection, the Sync tab open. */
async function openWithNewFolder(name: string): Promise<void> {
  folder = join(app.root, name);
  await openSyncTabWithFolder(page, app.bridge.url, collectionId, folder);
}

/** What transfers have written: part files and media under sets/ (not the state, saved now and then). */
const bytesOnDisk = (dest: string) => bytesUnder(dest, (p) => !p.endsWith('/set.json') && (p.includes('/.dataset-sync/partial/') || p.includes('/sets/')));


async function lastRun(): Promise<SyncSummary> {
  const history = await app.bridge.services.handlers['sync:history']({ collectionId });
  if (!history.ok) throw new Error(history.error.message);
  const last = history.value[0]!;
  if (last.kind === 'verify') throw new Error('the last run was a verify');
  return last;
}

async function expectEveryFileVerified(dest: string): Promise<void> {
  const check = await run('sha256sum', ['-c', '--strict', 'SHA256SUMS'], { cwd: dest });
  expect(check.stdout.trim().split('\n')).toHaveLength(SETS * SLOTS);
  expect(check.stdout).not.toMatch(/FAILED/);
}

describe('bandwidth limit and pause from the app', () => {
  it('a limit typed in Settings caps the next sync at about that rate', { timeout: 120_000 }, async () => {
    await page.goto(app.bridge.url);
    await page.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
    const field = page.getByLabel('Bandwidth limit (MiB/s)');
    // Refused with the reason, nothing saved.
    await field.fill('-1');
    expect(await page.getByRole('alert').textContent()).toBe('Bandwidth limit cannot be negative, got "-1": use empty or 0 for no limit.');
    await field.fill('fast');
    expect(await page.getByRole('alert').textContent()).toMatch(/^Bandwidth limit must be a number of MiB\/s/);
    expect(app.bridge.services.settings.view().bwlimitBytesPerSecond).toBeNull();
    await field.fill('1');
    await expect.poll(() => app.bridge.services.settings.view().bwlimitBytesPerSecond).toBe(CAP);
    expect(await page.getByRole('alert').count()).toBe(0);

    await openWithNewFolder('capped');
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    await expect.poll(() => page.getByTestId('sync-result').textContent(), { timeout: 60_000 }).toMatch(new RegExp(`^Last sync: ${SETS * SLOTS} downloaded, 0 up to date, 0 failed\\.`));
    const summary = await lastRun();
    expect(summary.bytesDownloaded).toBe(TOTAL);
    // Over the whole run (listing and manifest included, a few ms on loopback): not above the
    // cap by more than 10 %, and not wildly below it (loopback alone is hundreds of MB/s).
    const rate = summary.bytesDownloaded / (summary.durationMs / 1000);
    expect(rate).toBeLessThan(CAP * 1.1);
    expect(rate).toBeGreaterThan(CAP * 0.7);
    await expectEveryFileVerified(folder);
  });

  it('Pause stops what the service sends and says Paused; Resume (by keyboard, focus kept) finishes without a second walk', { timeout: 120_000 }, async () => {
    expect(app.bridge.services.settings.view().bwlimitBytesPerSecond).toBe(CAP); // keeps the run long enough to pause
    await openWithNewFolder('paused');
    await app.service.admin.resetStats();
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    const toggle = page.getByTestId('pause-resume');
    await toggle.waitFor();
    await expect.poll(() => bytesOnDisk(folder), { timeout: 30_000 }).toBeGreaterThan(MiB);

    await toggle.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('sync-paused').waitFor();
    expect(await toggle.textContent()).toBe('Resume');
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    // Focus stays on the control: Pause became Resume under the keyboard.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Resume');
    expect(await page.getByTestId('header-activity').textContent()).toMatch(/^Paused /);
    expect(await page.getByTestId('sync-paused').textContent()).toMatch(/^Paused\. Nothing is downloaded meanwhile/);
    // Everything else in the panel says paused too: the Sync button, the progress line (no rate,
    // no time left) and the transfers in flight (no speed).
    const syncButton = page.locator('.sync-actions button.primary');
    expect(await syncButton.textContent()).toBe('Paused');
    await expect.poll(() => page.getByTestId('overall-progress').textContent(), { timeout: 5000 }).toMatch(/ · paused$/);
    expect(await page.getByTestId('overall-progress').textContent()).not.toMatch(/\/s|left|ETA|downloading/);
    const inFlight = page.locator('[role="row"][data-state="downloading"]');
    expect(await inFlight.count()).toBeGreaterThan(0);
    for (const text of await inFlight.allTextContents()) {
      expect(text).toMatch(/Paused \d+%/);
      expect(text).not.toMatch(/Downloading|B\/s/);
    }

    // Nothing more leaves the service while paused (what was on its way when Pause came settles
    // within a moment). Bodies that had arrived in full may still be written to disk (their last
    // chunks waited for the shared bandwidth budget), never more than what the service had sent.
    await sleep(600);
    const sentAtPause = (await app.service.admin.stats()).fileBytesSent;
    await sleep(2500);
    expect((await app.service.admin.stats()).fileBytesSent).toBe(sentAtPause);
    const held = await bytesOnDisk(folder);
    expect(held).toBeLessThanOrEqual(sentAtPause);
    expect(sentAtPause).toBeLessThan(TOTAL);

    // The walk's page requests so far (the engine's walk, and the card's one-page sample of a first sync's size).
    const pagesBeforeResume = await setPageRequests(app.service.admin);
    await page.keyboard.press('Enter');
    await expect.poll(() => toggle.textContent()).toBe('Pause');
    expect(await page.getByTestId('sync-paused').count()).toBe(0);
    expect(await page.getByTestId('header-activity').textContent()).toMatch(/^Syncing /);
    expect(await syncButton.textContent()).toBe('Syncing…');
    await expect.poll(() => page.getByTestId('sync-result').textContent(), { timeout: 60_000 }).toMatch(new RegExp(`^Last sync: ${SETS * SLOTS} downloaded, 0 up to date, 0 failed\\.`));
    expect((await lastRun()).bytesDownloaded).toBe(TOTAL);
    await expectEveryFileVerified(folder);
    // One walk of the accepted sets, not a second one after Resume.
    expect(pagesBeforeResume).toBeGreaterThanOrEqual(1);
    expect(await setPageRequests(app.service.admin)).toBe(pagesBeforeResume);
  });
});

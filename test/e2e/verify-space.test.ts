// End-to-end (real Chromium through the web bridge, real engine, reference service, real disk):
// Verify shows its progress (files, bytes, rate), keeps Sync disabled while it runs, can be
// cancelled, and its report still offers Repair; a sync whose bytes to download exceed the free
// space of its disk (a real 100 MiB tmpfs: mounting one needs root, the test is skipped with the
// reason elsewhere) is held and asks, in the window, whether to go on, and once a set is on disk
// Sync asks before it starts.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';
import { bytesUnder, openSyncTabWithFolder } from './sync-tab';

const MiB = 1024 * 1024;
const FILES = 8; // 8 sets of one 64 MiB file: long enough a verify to watch and cancel
const FILE_SIZE = 64 * MiB;

let app: BrowserApp;
let page: Page;
let folder: string;
let collectionId: number;
let mounted: string | null = null;

beforeAll(async () => {
  app = await startBrowserApp({
    name: 'verify',
    service: { seed: 29, sets: FILES, fileSize: FILE_SIZE, slots: 1 },
    connected: true,
    pickFolderAnswer: () => folder,
    viewport: { width: 1280, height: 900 },
  });
  page = app.page;
  collectionId = app.service.clients[0]!.collections[0]!;
}, 180_000);

afterAll(async () => {
  // --lazy: a file of the small disk still open a moment after the last test (a sync settling)
  // must not fail the file's clean-up ("target is busy" once in .ci/run); the mount goes at once.
  if (mounted) execFileSync('umount', ['--lazy', mounted]);
  await app?.close();
});

async function openWithNewFolder(dest: string): Promise<void> {
  folder = dest;
  await openSyncTabWithFolder(page, app.bridge.url, collectionId, folder);
}

describe('verify in the app', () => {
  it('shows files and bytes checked with the rate, keeps Sync disabled, offers Repair, and can be cancelled', { timeout: 240_000 }, async () => {
    await openWithNewFolder(join(app.root, 'big'));
    const sync = page.getByRole('button', { name: 'Sync', exact: true });
    await sync.click();
    const result = page.getByTestId('sync-result');
    await expect.poll(() => result.textContent(), { timeout: 120_000 }).toMatch(/^Last sync: 8 downloaded, 0 up to date, 0 failed\./);
    const sums = (await fs.readFile(join(folder, 'SHA256SUMS'), 'utf8')).trim().split('\n').map((l) => l.split(/ {2}/)[1]!);
    await fs.rm(join(folder, sums[FILES - 1]!));

    const verify = page.getByRole('button', { name: 'Verify', exact: true });
    await verify.click();
    // While it runs: Sync and Full rescan are disabled, and progress says how far it is.
    await page.getByRole('button', { name: 'Verifying…' }).waitFor();
    expect(await page.getByRole('button', { name: 'Syncing…' }).count()).toBe(0);
    expect(await sync.isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Full rescan' }).isDisabled()).toBe(true);
    const progress = page.getByTestId('verify-progress').filter({ hasText: /^Verifying: [1-7] of 8 files · [\d.]+ MiB of 512 MiB · [\d.]+ ([KMG]i)?B\/s$/ });
    await progress.waitFor({ timeout: 30_000 });
    const report = page.getByTestId('verify-report');
    await expect.poll(() => report.textContent(), { timeout: 60_000 }).toContain('Dataset differs from its manifest. 7 of 8 files OK · 1 missing · 0 changed · 0 extra');
    expect(await page.getByTestId('verify-progress').count()).toBe(0);
    expect(await sync.isDisabled()).toBe(false);
    // The report still offers Repair.
    expect(await page.getByRole('button', { name: 'Repair 1 file' }).isEnabled()).toBe(true);
    await expect.poll(() => page.getByTestId('card-verified').textContent()).toMatch(/problems found: 1 missing$/);
    const verifiedLine = await page.getByTestId('card-verified').textContent();

    // Cancel (by keyboard, focus following the action): the verify stops, nothing is reported or
    // recorded, Sync is available again.
    await verify.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel verify');
    await page.keyboard.press('Enter');
    await page.getByTestId('verify-cancelled').waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Verify');
    expect(await report.count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Cancel verify' }).count()).toBe(0);
    expect(await sync.isDisabled()).toBe(false);
    expect(await page.getByTestId('card-verified').textContent()).toBe(verifiedLine);
    expect(app.bridge.services.syncs.isBusy({ accountId: app.bridge.services.connection.activeAccountId(), collectionId })).toBe(false);
  });
});

describe('a sync that would not fit', () => {
  it('is held with a question while it runs, and asked before it starts once the card can estimate it', { timeout: 240_000 }, async (ctx) => {
    const small = join(app.root, 'small');
    await fs.mkdir(small, { recursive: true });
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=100m', 'tmpfs', small], { stdio: 'pipe' });
      mounted = small;
    } catch (e) {
      ctx.skip(`mount -t tmpfs refused (a real small disk needs root): ${String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim()}`);
    }
    const dest = join(small, 'ds');
    // One transfer at a time at 10 MB/s: room to cancel once the first file is on disk, before the second fills it.
    app.bridge.services.settings.update({ concurrency: 1, bwlimitBytesPerSecond: 10_000_000 });
    await openWithNewFolder(dest);
    const question = page.getByRole('dialog', { name: 'Not enough disk space' });
    const sync = page.getByRole('button', { name: 'Sync', exact: true });
    const result = page.getByTestId('sync-result');
    const cancelled = 'Cancelled. Partial downloads are kept; the next Sync resumes them.';

    // Nothing on disk yet, so nothing to estimate: the running sync is held once what it listed exceeds the free space.
    await sync.click();
    await question.waitFor({ timeout: 30_000 });
    expect(await question.textContent()).toMatch(/This sync still has [\d.]+ MiB to download, but only [\d.]+ ([KMG]i)?B is free on the dataset's disk\. The sync is paused\./);
    // Focus in the dialog, on the safe answer.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel sync');
    expect(await page.getByTestId('sync-paused').textContent()).toMatch(/^Paused: not enough disk space\./);
    await sleep(600);
    const held = await bytesUnder(dest);
    await sleep(1500);
    expect(await bytesUnder(dest)).toBe(held); // held: nothing more is written
    expect(held).toBeLessThan(100 * MiB);
    await question.getByRole('button', { name: 'Cancel sync' }).click();
    await expect.poll(() => result.textContent(), { timeout: 30_000 }).toBe(cancelled);
    expect(await question.count()).toBe(0);

    // Asked again on the next sync; "Download anyway" goes on (cancelled here once one file is verified).
    await sync.click();
    await question.waitFor({ timeout: 30_000 });
    await question.getByRole('button', { name: 'Download anyway' }).click();
    await expect.poll(() => bytesUnder(join(dest, 'sets')), { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(FILE_SIZE);
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await expect.poll(() => result.textContent(), { timeout: 30_000 }).toBe(cancelled);

    // A set is on disk now: the card estimates the next sync (the other accepted sets at that
    // size), and Sync asks before anything starts.
    await expect.poll(() => page.getByTestId('card-to-download').textContent()).toMatch(/^about [\d.]+ MiB \(7 new accepted sets, estimated\) — this will not fit/);
    await sync.click();
    await question.waitFor();
    expect(await question.textContent()).toMatch(/This sync will download about [\d.]+ MiB \(7 new accepted sets at the average size of those on disk\), but only [\d.]+ ([KMG]i)?B is free/);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Don't sync");
    expect(app.bridge.services.syncs.runningCollections()).toEqual([]); // nothing started
    await question.getByRole('button', { name: "Don't sync" }).click();
    expect(await question.count()).toBe(0);
    expect(app.bridge.services.syncs.runningCollections()).toEqual([]);

    // "Sync anyway": the run is not asked again, and the full disk ends it with the reason.
    await sync.click();
    await question.getByRole('button', { name: 'Sync anyway' }).click();
    await expect.poll(() => result.textContent(), { timeout: 60_000 }).toMatch(/^Sync stopped: .*(ENOSPC|disk|space)/i);
    expect(await question.count()).toBe(0);
  });
});

// End-to-end (real Chromium through the web bridge, real engine, reference service, real disk):
// what the window shows after Cancel and during the resume is what is on disk and what arrives.
// Issue 13 saw 95 % after a Cancel with 21 % on disk, and a resume showing 345 MB/s because the
// bytes already held counted as received. Also: a sync that fails as a whole is said in the
// window and by the OS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { ProgressEvent } from '../../src-shared/sync-events';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';
import { recordPushedProgress } from '../support/pushed-progress';

const SETS = 6;
const SLOTS = 2;
// 1 MiB: each file takes a whole transfer slot (smaller ones share slots, sync-pools.ts), so four run at once.
const FILE_SIZE = 1024 * 1024;
/** Each body stalls after 90 % of the file: a Cancel leaves most bytes held in part files. */
const HELD = Math.floor(FILE_SIZE * 0.9);

let app: BrowserApp;
let page: Page;
let dest: string;
const pushed: ProgressEvent[] = [];

beforeAll(async () => {
  app = await startBrowserApp({
    name: 'cancel-truth',
    service: { seed: 31, sets: SETS, fileSize: FILE_SIZE, slots: SLOTS },
    connected: true,
    pickFolderAnswer: (root) => join(root, 'dataset'),
    viewport: { width: 1280, height: 900 },
  });
  page = app.page;
  dest = join(app.root, 'dataset');
  recordPushedProgress(page, pushed);
});

afterAll(async () => {
  await app?.close();
});

/** Bytes of the files under `dir` (recursively) whose name matches, 0 when it does not exist. */
async function bytesUnder(dir: string, name: RegExp): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.isFile() && name.test(entry.name)) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

const shownPct = async () => Number(await page.getByRole('progressbar', { name: 'Overall sync progress' }).getAttribute('aria-valuenow'));

describe('progress after Cancel and on resume', () => {
  it('shows the share on disk after Cancel; the resume never claims a rate above what arrived', { timeout: 120_000 }, async () => {
    const { service, bridge } = app;
    const collectionId = service.clients[0]!.collections[0]!;
    const total = SETS * SLOTS * FILE_SIZE;
    await page.goto(bridge.url);
    await page.locator(`[data-collection-id="${collectionId}"]`).getByRole('button').first().click();
    await page.getByRole('tab', { name: 'Sync' }).click();
    await page.getByRole('button', { name: 'Folder…' }).click();
    await expect.poll(() => page.getByTestId('dataset-folder').textContent()).toBe(dest);

    await service.admin.addFault({ api: 'delivery', path: '^/files/' }, { type: 'stall', afterBytes: HELD, ms: 60_000 });
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    // Four transfers (the default concurrency) hold 90 % each and wait.
    await expect.poll(() => page.locator('[role="row"][data-state="downloading"]', { hasText: /Downloading (89|90)%/ }).count(), { timeout: 30_000 }).toBe(4);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.getByTestId('sync-result').textContent(), { timeout: 20_000 }).toContain('Cancelled.');

    // Media on disk: four part files of 90 % each, nothing under a final name yet.
    const onDisk = (await bytesUnder(join(dest, 'sets'), /^set_\d+_slot_/)) + (await bytesUnder(join(dest, '.dataset-sync', 'partial'), /\.part$/));
    expect(onDisk).toBe(4 * HELD);
    const diskPct = Math.floor((onDisk / total) * 100);
    expect(Math.abs((await shownPct()) - diskPct), `shown ${await shownPct()} %, on disk ${diskPct} %`).toBeLessThanOrEqual(2);
    expect(await page.getByTestId('overall-progress').textContent()).toMatch(new RegExp(`^${await shownPct()}% · sets 0 of ${SETS} · `));

    // The resume: held bytes count as done, never as received.
    await service.admin.clearFaults();
    await service.admin.resetStats();
    // Every answer waits a second: the start of the resume is long enough to be seen.
    await service.admin.addFault({ api: 'delivery', path: '^/files/' }, { type: 'latency', ms: 1000 });
    const firstOfResume = pushed.length;
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    await expect.poll(() => page.getByTestId('sync-result').textContent(), { timeout: 45_000 }).toMatch(/^Last sync: 12 downloaded, 0 up to date, 0 failed\./);
    const sent = (await service.admin.stats()).fileBytesSent;
    expect(sent).toBe(total - 4 * HELD);
    const resumed = pushed.slice(firstOfResume);
    // Before a byte arrives the held bytes already count as done, at a rate of 0 (not "0 %", not a spike).
    const heldShare = (4 * HELD) / total;
    expect(resumed.some((p) => p.bytesDone >= 4 * HELD && p.bytesPerSecond === 0 && p.fraction >= heldShare * 0.9)).toBe(true);
    expect(resumed.length).toBeGreaterThan(0);
    for (const p of resumed) {
      // A rate is taken over at least a second: it cannot exceed what arrived in the whole run.
      expect(p.bytesPerSecond, JSON.stringify(p)).toBeLessThanOrEqual(sent);
      expect(p.bytesRedownloaded).toBe(0);
      expect(p.setsTotal).toBe(SETS);
    }
    for (let i = 1; i < resumed.length; i++) expect(resumed[i]!.fraction).toBeGreaterThanOrEqual(resumed[i - 1]!.fraction);
    await expect.poll(shownPct).toBe(100);
  });

  it('says in the window and by the OS when a sync fails as a whole', async () => {
    const { service, bridge } = app;
    await service.admin.revokeKey(service.clients[0]!.apiKey);
    await page.getByRole('button', { name: 'Full rescan' }).click();
    await expect.poll(() => page.getByTestId('sync-result').textContent(), { timeout: 30_000 }).toMatch(/^Sync stopped: /);
    await page.locator('.toast-error', { hasText: /failed: / }).waitFor();
    expect(bridge.notifications.some((n) => n.title === 'Sync failed')).toBe(true);
  });
});

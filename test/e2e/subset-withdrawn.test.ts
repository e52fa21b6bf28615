// Subsets and withdrawn sets in the window (issue 22, points 5 and 6): one slot chosen on the Sync
// tab syncs only that slot's files and the card says so; a set the service rejects moves to
// DEST.withdrawn at the next sync, the card lists it, and Delete withdrawn data (confirmed)
// deletes the quarantine. Real Chromium through the web bridge (real handlers, engine, disk)
// against the reference service, at a narrow and a wide window.
import { promises as fs } from 'node:fs';
import { join, relative } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bridge } from '../../scripts/web-bridge/server';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';
import { openSyncTabWithFolder } from './sync-tab';

interface ListedSet {
  id: number;
  files: Array<{ slot_key: string; filename: string }>;
}

/** Files under `dest`/sets, set.json excepted, as "sets/<id>/<name>", sorted. */
async function videoFiles(dest: string): Promise<string[]> {
  const entries = await fs.readdir(join(dest, 'sets'), { withFileTypes: true, recursive: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && e.name !== 'set.json')
    .map((e) => relative(dest, join(e.parentPath, e.name)))
    .sort();
}

describe.each([800, 1280])('subset and withdrawn sets at %i px', (width) => {
  let app: BrowserApp;
  let service: BrowserApp['service'];
  let bridge: Bridge;
  let page: Page;
  let dest: string;

  beforeAll(async () => {
    app = await startBrowserApp({
      name: `subset-${width}`,
      service: { seed: 23, sets: 4, fileSize: 4 * 1024, slots: 2 },
      connected: true,
      pickFolderAnswer: (root) => join(root, 'dataset'),
      viewport: { width, height: 900 },
    });
    ({ service, bridge, page } = app);
    dest = join(app.root, 'dataset');
  });

  afterAll(async () => {
    await app?.close();
  });

  async function accepted(collectionId: number): Promise<ListedSet[]> {
    const res = await fetch(`${service.deliveryBaseUrl}/collections/${collectionId}/sets?status=accepted&page=1&per_page=200`, {
      headers: { authorization: `Bearer ${service.clients[0]!.apiKey}` },
    });
    return ((await res.json()) as { sets: ListedSet[] }).sets;
  }

  it('one slot syncs only its files; a rejected set is withdrawn, listed and deleted', { timeout: 180_000 }, async () => {
    const collectionId = service.clients[0]!.collections[0]!;
    const sets = await accepted(collectionId);
    const keys = [...new Set(sets.flatMap((s) => s.files.map((f) => f.slot_key)))].sort();
    expect(keys.length).toBeGreaterThanOrEqual(2);
    const key = keys[0]!;

    await openSyncTabWithFolder(page, bridge.url, collectionId, dest);
    const words = page.getByTestId('subset-words');
    await expect.poll(() => words.textContent()).toBe('Whole collection');
    await words.click();
    await page.locator(`input[name="subset-slot"][value="${key}"]`).check();
    await expect.poll(() => words.textContent()).toBe(`Subset: slots ${key}`);

    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    const result = page.getByTestId('sync-result');
    await expect.poll(() => result.textContent(), { timeout: 60_000 }).toMatch(/Last sync: \d+ downloaded, 0 up to date, 0 failed\./);
    const wanted = sets.flatMap((s) => s.files.filter((f) => f.slot_key === key).map((f) => `sets/${s.id}/${f.filename}`)).sort();
    expect(wanted.length).toBe(sets.length);
    expect(await videoFiles(dest)).toEqual(wanted);
    await expect.poll(() => page.getByTestId('withdrawn-words').textContent()).toBe('Withdrawn: none.');

    // The service rejects one set: the next sync moves it to the quarantine.
    const gone = sets[0]!.id;
    await service.admin.setStatus(gone, 'rejected');
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    await expect.poll(() => page.getByTestId('withdrawn-words').textContent(), { timeout: 60_000 }).toMatch(new RegExp(`^Withdrawn: 1 set \\(${gone}\\), `));
    expect(await videoFiles(dest)).toEqual(wanted.filter((p) => !p.startsWith(`sets/${gone}/`)));
    await fs.access(join(`${dest}.withdrawn`, String(gone)));

    await page.getByRole('button', { name: 'Delete withdrawn data' }).click();
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.textContent()).toMatch(/This deletes 1 set \(\d+ files?, /);
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => page.getByTestId('withdrawn-words').textContent()).toBe('Withdrawn: none.');
    await page.getByTestId('withdrawn-deleted').waitFor();
    await expect(fs.access(`${dest}.withdrawn`)).rejects.toThrow();
    // The choice is remembered with the dataset (main's settings), not only in the window.
    await page.reload();
    await page.locator(`[data-collection-id="${collectionId}"]`).getByRole('button').first().click();
    await page.getByRole('tab', { name: 'Sync' }).click();
    await expect.poll(() => page.getByTestId('subset-words').textContent()).toBe(`Subset: slots ${key}`);
  });
});

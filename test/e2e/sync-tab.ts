// Steps the sync-control e2e tests share: open a collection's Sync tab on a newly chosen folder,
// and measure what a sync has written.
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** From the collections list (loaded afresh): the collection, "Folder…" (the picker answers `folder`), its Sync tab. */
export async function openSyncTabWithFolder(page: Page, appUrl: string, collectionId: number, folder: string): Promise<void> {
  await page.goto(appUrl); // loads the app the first time; the same URL again changes nothing
  await page.reload(); // back on the collections list, whatever was open
  await page.locator(`[data-collection-id="${collectionId}"]`).getByRole('button').first().click();
  await page.getByRole('button', { name: 'Folder…' }).click();
  await expect.poll(() => page.getByTestId('dataset-folder').textContent()).toBe(folder);
  await page.getByRole('tab', { name: 'Sync' }).click();
}

/** Bytes of the files under `dir` whose path passes `include` (all by default). */
export async function bytesUnder(dir: string, include: (path: string) => boolean = () => true): Promise<number> {
  let total = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && include(path)) total += (await fs.stat(path)).size;
  }
  return total;
}

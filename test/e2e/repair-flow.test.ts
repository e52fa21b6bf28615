// End-to-end Repair in the app (issue 12): the built renderer in real Chromium over the browser
// test bridge (real handlers, engine and disk) and the reference service. Sync a collection,
// damage the dataset on disk (one file deleted, one with a byte flipped at the same size and
// mtime, which only hashing finds), Verify in the UI, press "Repair 2 files", Verify again; the
// report says all OK and `sha256sum -c SHA256SUMS` passes in DEST. The two reports are saved as
// docs/screenshots/verify-before-repair.png and verify-after-repair.png.
import { execFile } from 'node:child_process';
import { open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startUiStack, type UiStack } from './ui-stack';
import { docScreenshot } from '../support/doc-screenshot';


let stack: UiStack;
let page: Page;
let dest: string;

beforeAll(async () => {
  stack = await startUiStack({ name: 'repair', service: { seed: 12, sets: 4, fileSize: 48 * 1024, slots: 3 }, viewport: { width: 1280, height: 800 } });
  ({ page, datasetDir: dest } = stack);
});

afterAll(async () => {
  await stack?.close();
});

const run = promisify(execFile);

/** Flips one byte in the middle of a file and puts its mtime back: size and mtime match the manifest. */
async function flipByteKeepingStat(file: string): Promise<void> {
  const before = await stat(file, { bigint: true });
  const handle = await open(file, 'r+');
  try {
    const at = Number(before.size) / 2;
    const byte = Buffer.alloc(1);
    await handle.read(byte, 0, 1, at);
    byte[0] = byte[0]! ^ 0xff;
    await handle.write(byte, 0, 1, at);
  } finally {
    await handle.close();
  }
  // utimes() takes seconds as a double and loses nanoseconds; touch sets them exactly.
  const { mtimeNs } = before;
  await run('touch', ['-m', '-d', `@${mtimeNs / 1_000_000_000n}.${String(mtimeNs % 1_000_000_000n).padStart(9, '0')}`, file]);
  const after = await stat(file, { bigint: true });
  expect([after.size, after.mtimeNs]).toEqual([before.size, before.mtimeNs]);
}

it('verify finds a deleted and a silently changed file, Repair downloads both again, verify is clean', { timeout: 180_000 }, async () => {
  const { service, bridge } = stack;
  const client = service.clients[0]!;
  const collectionId = client.collections[0]!;
  await page.goto(bridge.url);
  await page.getByLabel('Base URL').fill(service.deliveryBaseUrl);
  await page.getByLabel('API key').fill(client.apiKey);
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.locator(`[data-collection-id="${collectionId}"]`).getByRole('button').first().click();
  await page.getByRole('button', { name: 'Folder…' }).click();
  await expect.poll(() => page.getByTestId('dataset-folder').textContent()).toBe(dest);
  await page.getByRole('tab', { name: 'Sync' }).click();
  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  const result = page.getByTestId('sync-result');
  await expect.poll(() => result.textContent(), { timeout: 60_000 }).toMatch(/Last sync: \d+ downloaded, 0 up to date, 0 failed\./);

  // Damage: one file gone, one with a flipped byte (same size, same mtime).
  const sums = (await readFile(join(dest, 'SHA256SUMS'), 'utf8')).trim().split('\n').map((l) => l.split(/ {2}/)[1]!);
  const total = sums.length;
  const [gone, flipped] = [sums[0]!, sums[sums.length - 1]!];
  await rm(join(dest, gone));
  await flipByteKeepingStat(join(dest, flipped));

  const report = page.getByTestId('verify-report');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect.poll(() => report.textContent(), { timeout: 30_000 }).toContain(`Dataset differs from its manifest. ${total - 2} of ${total} files OK · 1 missing · 1 changed · 0 extra`);
  expect(await report.textContent()).toContain(gone);
  expect(await report.textContent()).toContain(flipped);
  // Every view of the dataset now says what Verify found: the card, and the Files table (no longer "Verified (all)").
  await expect.poll(() => page.getByTestId('card-verified').textContent()).toMatch(/ · problems found: 1 missing, 1 changed$/);
  await expect.poll(() => page.getByTestId('card-on-disk').textContent()).toMatch(new RegExp(`^${total - 1} files · `));
  const filterChoices = () => page.getByLabel('Filter files by state').locator('option').allTextContents();
  await expect.poll(filterChoices).toContainEqual('Failed (2)');
  expect(await filterChoices()).toContainEqual(`Verified (${total - 2})`);
  // The damaged rows say what Verify found on disk, not that a download failed ("Could not download").
  const damagedRows = page.locator('.transfer-row[data-state="failed"] .failure-toggle');
  await expect.poll(async () => (await damagedRows.allTextContents()).map((t) => t.replace('▸', '').trim()).sort()).toEqual(['Changed on disk', 'Missing on disk']);
  await report.scrollIntoViewIfNeeded();
  await docScreenshot(page, 'verify-before-repair');

  await page.getByRole('button', { name: 'Repair 2 files' }).click();
  await expect.poll(() => result.textContent(), { timeout: 60_000 }).toMatch(/Last repair: 2 downloaded, \d+ up to date, 0 failed\./);
  // The run touched only the damaged files' sets; the panel says so rather than look like a short sync.
  await expect.poll(() => page.locator('#files-title').textContent()).toBe('Files of the last repair');
  await expect.poll(() => page.locator('.toast').allTextContents()).toContainEqual(expect.stringMatching(/^Repair of ".+" finished: 2 downloaded, /));
  // The dataset card keeps what the last sync changed: a repair is not the service editing sets.
  expect(await page.getByTestId('card-changes').textContent()).toMatch(/^New sets: .+ · edited: none · left accepted: none$/);
  // The repair fixed what Verify found: the card no longer says "problems found".
  await expect.poll(() => page.getByTestId('card-verified').textContent()).toMatch(/ · problems found, repaired .+: intact$/);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect.poll(() => report.textContent(), { timeout: 30_000 }).toContain(`Dataset intact. ${total} of ${total} files OK · 0 missing · 0 changed · 0 extra`);
  expect(await page.getByRole('button', { name: /^Repair/ }).count()).toBe(0);
  await expect.poll(() => page.getByTestId('card-verified').textContent()).toMatch(/ · intact$/);
  // The Files table now tells the Verify's story, not the repair's: every file verified, no mix of
  // the repair's 2 "Verified" with the rest "Up to date", and not "Files of the last repair".
  await expect.poll(() => page.locator('#files-title').textContent()).toBe('Files as the last Verify found them');
  await expect.poll(filterChoices).toContainEqual(`Verified (${total})`);
  expect((await filterChoices()).filter((c) => /^(Up to date|Failed) \([1-9]/.test(c))).toEqual([]);
  await report.scrollIntoViewIfNeeded();
  await docScreenshot(page, 'verify-after-repair');

  // An extra file: the headline and the card say the same.
  await writeFile(join(dest, 'sets', 'notes.txt'), 'mine');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect.poll(() => report.textContent(), { timeout: 30_000 }).toContain(`Dataset intact; 1 extra file not in the manifest. ${total} of ${total} files OK · 0 missing · 0 changed · 1 extra`);
  await expect.poll(() => page.getByTestId('card-verified').textContent()).toMatch(/ · intact; 1 extra file not in the manifest$/);
  await rm(join(dest, 'sets', 'notes.txt'));

  // The history says what each run was.
  await expect.poll(() => page.locator('table.history tbody tr td:first-child').allTextContents()).toEqual(['Verify', 'Verify', 'Repair', 'Verify', 'Sync']);

  // A fresh folder: nothing of the old one's repair or runs.
  stack.pickNext(join(stack.root, 'fresh'));
  await page.getByRole('button', { name: 'Folder…' }).click();
  await expect.poll(() => page.getByTestId('dataset-folder').textContent()).toBe(join(stack.root, 'fresh'));
  // The folder's path shows first; the Files table follows when the new folder's card has loaded.
  await expect.poll(() => page.locator('#files-title').textContent()).toBe('Files');
  await page.getByText('No syncs yet.').waitFor();

  const check = await run('sha256sum', ['-c', '--strict', 'SHA256SUMS'], { cwd: dest });
  expect(check.stdout.trim().split('\n')).toHaveLength(total);
  expect(check.stdout).not.toMatch(/FAILED/);
});

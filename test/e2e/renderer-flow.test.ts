// End-to-end: the built renderer in real Chromium, driven like a researcher would, against the
// browser test bridge (real main-process handlers, engine and disk) and the reference service
// over loopback HTTP. Screenshots of every screen land in test-artifacts/screens/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Bridge } from '../../scripts/web-bridge/server';
import { startUiStack, type UiStack } from './ui-stack';

const SCREENS_DIR = join(process.cwd(), 'test-artifacts', 'screens');
const SIZES = [
  { width: 1024, height: 700 },
  { width: 1280, height: 800 },
] as const;
const SETS = 8;
const FILE_SIZE = 64 * 1024;

let stack: UiStack;
let datasetDir: string;
let service: UiStack['service'];
let bridge: Bridge;
let page: Page;

beforeAll(async () => {
  await mkdir(SCREENS_DIR, { recursive: true });
  stack = await startUiStack({ name: 'ui', service: { seed: 7, sets: SETS, fileSize: FILE_SIZE }, viewport: SIZES[0] });
  ({ datasetDir, service, bridge, page } = stack);
});

afterAll(async () => {
  await stack?.close();
});

/** Both window sizes, full viewport (what a user sees without scrolling). */
async function screenshot(name: string): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.waitForTimeout(50); // let the virtualiser and layout settle after a resize
    await page.screenshot({ path: join(SCREENS_DIR, `${name}-${size.width}x${size.height}.png`) });
  }
  await page.setViewportSize(SIZES[0]);
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

describe('renderer end to end', () => {
  it('connects, opens the collection, syncs to disk, verifies and browses sets', async () => {
    const client = service.clients[0]!;
    const collectionId = client.collections[0]!;
    await page.goto(bridge.url);

    // Connect screen; a wrong key first.
    await page.getByLabel('Base URL').fill(service.deliveryBaseUrl);
    await screenshot('connect');
    await page.getByLabel('API key').fill('dsk_wrong_key_000000000000');
    await page.getByRole('button', { name: 'Connect' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('The service rejected this API key');
    expect(await alert.getAttribute('data-error-kind')).toBe('auth');
    await screenshot('connect-error');

    await page.getByLabel('API key').fill(client.apiKey);
    await page.getByRole('button', { name: 'Connect' }).click();
    const clientName = page.getByTestId('header-client-name');
    await clientName.waitFor();
    const shownName = (await clientName.textContent()) ?? '';
    expect(shownName).toBe(client.name);

    // Collections list.
    const card = page.locator(`[data-collection-id="${collectionId}"]`);
    await card.waitFor();
    expect(await card.textContent()).toContain('Never synced');
    await screenshot('collections');

    // Collection overview: quota bars and set counts from the service.
    await card.getByRole('button').first().click();
    await page.getByRole('tab', { name: 'Overview' }).waitFor();
    const bars = page.getByRole('progressbar');
    await bars.first().waitFor();
    expect(await bars.count()).toBeGreaterThan(1);
    expect(await bars.first().getAttribute('aria-valuetext')).toMatch(/^\d+ accepted, \d+ reserved, \d+ available of \d+$/);
    expect(await page.locator('.set-counts [data-state="accepted"] .count').textContent()).toBe(String(SETS));

    await page.getByRole('button', { name: 'Folder…' }).click();
    await expect.poll(() => page.getByTestId('dataset-folder').textContent()).toBe(datasetDir);
    await screenshot('collection');

    // Sync.
    await page.getByRole('tab', { name: 'Sync' }).click();
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    const result = page.getByTestId('sync-result');
    await result.waitFor({ timeout: 45_000 });
    expect(await result.textContent()).toMatch(/Last sync: \d+ downloaded, 0 up to date, 0 failed\./);
    await expect.poll(() => page.getByTestId('overall-progress').textContent()).toMatch(/^100%/);
    const filter = page.getByLabel('Filter files by state');
    const allText = (await filter.locator('option[value="all"]').textContent()) ?? '';
    const total = Number(/\((\d+)\)/.exec(allText)?.[1]);
    expect(total).toBeGreaterThanOrEqual(SETS);
    expect(await filter.locator('option[value="verified"]').textContent()).toBe(`Verified (${total})`);
    const firstRows = page.locator('[role="row"][data-file-id]');
    expect(await firstRows.count()).toBeGreaterThan(0);
    for (const state of await firstRows.evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.state))) expect(state).toBe('verified');
    await screenshot('sync');

    // The files really landed, and their bytes match SHA256SUMS.
    const sums = (await readFile(join(datasetDir, 'SHA256SUMS'), 'utf8')).trim().split('\n');
    expect(sums).toHaveLength(total);
    for (const line of sums) {
      const [hash, path] = line.split(/ {2}/);
      expect(sha256(await readFile(join(datasetDir, path!)))).toBe(hash);
    }
    expect((await readdir(join(datasetDir, 'sets'))).length).toBe(SETS);

    // Verify and its report.
    await page.getByRole('button', { name: 'Verify' }).click();
    const report = page.getByTestId('verify-report');
    await report.waitFor();
    expect(await report.textContent()).toContain(`Dataset intact. ${total} of ${total} files OK · 0 missing · 0 changed · 0 extra`);
    await page.getByRole('heading', { name: 'History' }).scrollIntoViewIfNeeded();
    expect(await page.locator('table.history tbody tr').count()).toBeGreaterThanOrEqual(1);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot('sync-verified');

    // Sets browser: accepted sets with participants (no names) and files.
    await page.getByRole('tab', { name: 'Sets' }).click();
    // With a folder the tab opens on the dataset's own sets (test/e2e/previews.test.ts); the service's list is one choice away.
    expect(await page.getByLabel('Status').inputValue()).toBe('dataset');
    await page.getByLabel('Status').selectOption('accepted');
    const setCards = page.locator('article.set-card');
    await setCards.first().waitFor();
    expect(await setCards.count()).toBe(SETS);
    const firstSet = (await setCards.first().textContent()) ?? '';
    expect(firstSet).toMatch(/Signed v|Missing/);
    expect(firstSet).toMatch(/set_\d+_slot_\d+\.\w+/);
    await screenshot('sets');
    await page.getByLabel('Status').selectOption('in_review');
    await page.getByText('Metadata only: files of sets that are not accepted are never downloaded').waitFor();

    // The collections list now reports the sync.
    await page.getByRole('button', { name: '← Collections' }).click();
    await expect.poll(() => card.textContent()).toContain('Synced');

    // Account details, and the dark theme.
    await page.getByRole('button', { name: /Signed in as/ }).click();
    await page.getByRole('button', { name: 'Account and key…' }).click();
    await page.getByRole('heading', { name: 'Connected account' }).waitFor();
    await screenshot('account');
    await page.getByRole('button', { name: /^Theme:/ }).click(); // system -> light
    await page.getByRole('button', { name: /^Theme:/ }).click(); // light -> dark
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await screenshot('account-dark');
    await page.getByRole('button', { name: /^Theme:/ }).click(); // dark -> system
  });

  it('shows transfers in flight, cancels keeping partials, and the next Sync resumes them', async () => {
    const collectionId = service.clients[0]!.collections[0]!;
    const added = await service.admin.addSets(collectionId, { count: 2 });
    const newBytes = added.reduce((sum, s) => sum + s.files.reduce((n, f) => n + f.size_bytes, 0), 0);
    // Every file body stalls after 16 KiB: transfers stay in flight until we cancel.
    await service.admin.addFault({ api: 'delivery', path: '^/files/' }, { type: 'stall', afterBytes: 16 * 1024, ms: 60_000 });

    await page.getByRole('button', { name: 'Open collections' }).click();
    await page.locator(`[data-collection-id="${collectionId}"]`).getByRole('button').first().click();
    await page.getByRole('tab', { name: 'Sync' }).click();
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    const downloading = page.locator('[role="row"][data-state="downloading"]', { hasText: 'Downloading 25%' });
    await downloading.first().waitFor({ timeout: 20_000 });
    expect(await page.getByRole('button', { name: 'Syncing…' }).isDisabled()).toBe(true);
    await screenshot('sync-running');

    await page.getByRole('button', { name: 'Cancel' }).click();
    const result = page.getByTestId('sync-result');
    await expect.poll(() => result.textContent(), { timeout: 20_000 }).toContain('Cancelled. Partial downloads are kept');
    const partials = await readdir(join(datasetDir, '.dataset-sync', 'partial')).catch(() => [] as string[]);
    expect(partials.length).toBeGreaterThan(0);
    // Nothing half-downloaded sits under a final name.
    for (const set of added) for (const f of set.files) await expect(readFile(join(datasetDir, 'sets', String(set.id), f.filename))).rejects.toThrow();

    await service.admin.clearFaults();
    await service.admin.resetStats();
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    await expect.poll(() => result.textContent(), { timeout: 45_000 }).toMatch(/Last sync: 8 downloaded, \d+ up to date, 0 failed\./);
    // Resumed, not restarted: the held bytes were not sent again.
    expect((await service.admin.stats()).fileBytesSent).toBeLessThan(newBytes);
    expect(await page.getByLabel('Filter files by state').locator('option[value="verified"]').textContent()).toBe('Verified (8)');
    for (const set of added) {
      for (const f of set.files) expect(sha256(await readFile(join(datasetDir, 'sets', String(set.id), f.filename)))).toBe(f.sha256);
    }
    expect(await page.locator('table.history tbody tr').count()).toBeGreaterThanOrEqual(3);
  });
});

// End-to-end (real Chromium through the web bridge, reference service): the connect form's
// address checks and kept key, Forget key's question, Settings in the header (saying why a
// value is refused), focus moving to each screen's heading, and a wide window using its width
// and height.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Bridge } from '../../scripts/web-bridge/server';
import type { Page } from 'playwright-core';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';

let app: BrowserApp;
let service: BrowserApp['service'];
let bridge: Bridge;
let page: Page;

beforeAll(async () => {
  await mkdir(join(process.cwd(), 'test-artifacts', 'screens'), { recursive: true });
  app = await startBrowserApp({
    name: 'forms',
    service: { seed: 5, sets: 3, fileSize: 16 * 1024 },
    connected: false,
    pickFolderAnswer: (root) => join(root, 'dataset'),
    viewport: { width: 1280, height: 800 },
  });
  ({ service, bridge, page } = app);
});

afterAll(async () => {
  await app?.close();
});

const focusedId = () => page.evaluate(() => document.activeElement?.id ?? '');

describe('forms and focus', () => {
  it('recognises almost-right addresses, keeps the key when only the address was wrong, and moves focus to headings', async () => {
    const key = service.clients[0]!.apiKey;
    const origin = new URL(service.deliveryBaseUrl).origin;
    await page.goto(bridge.url);
    const baseUrl = page.getByLabel('Base URL');
    const hint = page.locator('#base-url-hint');

    await baseUrl.fill(service.recruiterBaseUrl);
    await expect.poll(() => hint.textContent()).toContain("This is the recruiter API's address. The delivery service is at " + service.deliveryBaseUrl);
    await baseUrl.fill(origin);
    await expect.poll(() => hint.textContent()).toContain(`Did you mean ${service.deliveryBaseUrl}?`);
    await hint.getByRole('button', { name: 'Use this address' }).click();
    expect(await baseUrl.inputValue()).toBe(service.deliveryBaseUrl);
    expect(await hint.count()).toBe(0);

    // Nothing listens on port 9: the address is wrong, the key is kept for the next try.
    await baseUrl.fill('http://127.0.0.1:9/api/v1/partner');
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => page.getByRole('alert').getAttribute('data-error-kind'), { timeout: 30_000 }).toBe('network');
    expect(await page.getByLabel('API key').inputValue()).toBe(key);
    await baseUrl.fill(service.deliveryBaseUrl);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByTestId('header-client-name').waitFor();
    await expect.poll(focusedId).toBe('collections-title');

    // Opening a collection focuses its title.
    const collectionId = service.clients[0]!.collections[0]!;
    await page.locator(`[data-collection-id="${collectionId}"]`).getByRole('button').first().click();
    await expect.poll(focusedId).toBe('collection-title');

    // Settings from the header, focused on their heading.
    await page.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
    await expect.poll(focusedId).toBe('settings-title');

    // A refused value says why, in place, and is not saved; a valid one is.
    const parallel = page.getByLabel('Parallel downloads');
    const why = page.getByRole('alert').filter({ hasText: 'Parallel downloads' });
    for (const [typed, shown] of [['0', 'got 0'], ['17', 'got 17'], ['2.5', 'got 2.5'], ['', 'got nothing']] as const) {
      await parallel.fill(typed);
      await expect.poll(() => why.textContent()).toBe(`Parallel downloads must be an integer from 1 to 16, ${shown}.`);
      expect(await parallel.getAttribute('aria-invalid')).toBe('true');
    }
    expect((await bridge.services.handlers['settings:get'](undefined)) as unknown).toMatchObject({ ok: true, value: { concurrency: 4 } });
    await parallel.fill('8');
    await expect.poll(() => why.count()).toBe(0);
    await expect.poll(async () => (await bridge.services.handlers['settings:get'](undefined)) as unknown).toMatchObject({ ok: true, value: { concurrency: 8 } });

    // Forget key asks first; keeping it stays connected.
    await page.getByRole('button', { name: 'Forget key' }).click();
    const question = page.getByRole('alertdialog');
    expect(await question.textContent()).toContain('Forget the key of');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Keep key');
    await page.getByRole('button', { name: 'Keep key' }).click();
    expect(await question.count()).toBe(0);
    expect(await page.getByTestId('header-client-name').count()).toBe(1);
  });

  it('uses the width and height of a wide window', async () => {
    await page.setViewportSize({ width: 2560, height: 1400 });
    await page.getByRole('button', { name: 'Open collections' }).click();
    const collectionId = service.clients[0]!.collections[0]!;
    await page.locator(`[data-collection-id="${collectionId}"]`).getByRole('button').first().click();
    await page.getByRole('tab', { name: 'Sync' }).click();
    const mainWidth = await page.locator('main').evaluate((m) => m.getBoundingClientRect().width);
    expect(mainWidth).toBeGreaterThan(2000);
    // Room for well over 10 rows of 30 px.
    const tableHeight = await page.locator('.transfer-scroll').evaluate((t) => t.getBoundingClientRect().height);
    expect(tableHeight).toBeGreaterThan(25 * 30);
    await page.screenshot({ path: join(process.cwd(), 'test-artifacts', 'screens', 'sync-2560x1400.png') });
  });
});

// Sets without a signed consent, said in the window (issue 22, point 4): the Sync tab's result
// text, the history row and the in-app notice count them, and the Sets tab marks each such set;
// in real Chromium through the web bridge (real handlers, engine and disk) and the reference
// service, whose demo leaves every fifth accepted set with a participant B without a consent.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bridge } from '../../scripts/web-bridge/server';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';

const SETS = 10;

describe('sets without a signed consent, in the app', () => {
  let app: BrowserApp;
  let service: BrowserApp['service'];
  let bridge: Bridge;
  let page: Page;

  beforeAll(async () => {
    app = await startBrowserApp({ name: 'consent', service: { seed: 11, sets: SETS, fileSize: 4 * 1024, slots: 2 }, connected: true, pickFolderAnswer: (root) => join(root, 'dataset'), viewport: { width: 1280, height: 900 } });
    ({ service, bridge, page } = app);
  });

  afterAll(async () => {
    await app?.close();
  });

  /** The sets the service serves as accepted with a participant whose consent is null: the truth the app must tell. */
  async function lackingConsent(collectionId: number): Promise<number[]> {
    const res = await fetch(`${service.deliveryBaseUrl}/collections/${collectionId}/sets?status=accepted&page=1&per_page=200`, {
      headers: { authorization: `Bearer ${service.clients[0]!.apiKey}` },
    });
    const page1 = (await res.json()) as { sets: Array<{ id: number; participants: Array<{ consent: unknown }> }> };
    expect(page1.sets).toHaveLength(SETS);
    return page1.sets.filter((s) => s.participants.some((p) => p.consent === null)).map((s) => s.id);
  }

  it('the result text, the history row and the notice count them; the Sets tab marks each', { timeout: 120_000 }, async () => {
    const collectionId = service.clients[0]!.collections[0]!;
    const lacking = await lackingConsent(collectionId);
    expect(lacking).toHaveLength(2);
    const words = `${lacking.length} sets have a participant without a signed consent`;

    await page.goto(bridge.url);
    await page.locator(`[data-collection-id="${collectionId}"]`).getByRole('button').first().click();
    await page.getByRole('button', { name: 'Folder…' }).click();
    await page.getByRole('tab', { name: 'Sync' }).click();
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    const result = page.getByTestId('sync-result');
    await expect.poll(() => result.textContent(), { timeout: 45_000 }).toMatch(/Last sync: \d+ downloaded, 0 up to date, 0 failed\./);
    expect(await result.textContent()).toContain(`${words} (participants.csv: consent "missing").`);
    // Said as a caution, not in the colour of "all is well".
    expect(await result.getAttribute('class')).toBe('tone-warn');
    await expect.poll(() => page.locator('table.history tbody tr').first().locator('td').last().textContent()).toBe(`All verified; ${words}`);
    await page.locator('.toast', { hasText: words }).waitFor();

    await page.getByRole('tab', { name: 'Sets' }).click();
    await page.locator('[data-set-id]').first().waitFor();
    // The dataset's sets come a window-full at a time: ask for those with a consent missing.
    await page.getByLabel('Consent').selectOption('missing');
    await expect.poll(() => page.locator('[data-set-id]').count()).toBe(lacking.length);
    const marked = await page.locator('[data-set-id]:has([data-testid="consent-missing"])').evaluateAll((cards) => cards.map((c) => Number((c as HTMLElement).dataset.setId)));
    expect(marked.sort((a, b) => a - b)).toEqual([...lacking].sort((a, b) => a - b));
  });
});

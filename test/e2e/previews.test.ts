// The Sets tab's "In the dataset" view in real Chromium over the web bridge: after a real sync
// of the reference service's demo videos, every verified file shows a thumbnail made by main's
// ffmpeg, a click plays it in a <video> through the bridge's /media/<token>/ (the same handler
// as the app's dataset-media:// protocol), filters narrow the list, the page size follows the
// window height, and the media URLs refuse a wrong token.
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUiStack, type UiStack } from './ui-stack';
import { dismissNotices } from '../support/browser-app';
import { docScreenshot } from '../support/doc-screenshot';
import { toolPresent } from '../support/media-tools';

const SETS = 6;
let stack: UiStack;

const ffmpegPresent = (): boolean => toolPresent('ffmpeg');
const hasFfprobe = toolPresent('ffprobe');
const checkSetting = process.env.DATASET_SYNC_MEDIA_CHECK;

beforeAll(async () => {
  // The media check on (vitest.config.ts turns it off elsewhere; the engine runs in this process
  // behind the bridge): the Sets tab shows its findings, and the service's media faults give some.
  delete process.env.DATASET_SYNC_MEDIA_CHECK;
  // No fileSize: the service serves its real demo clips (mp4 and mov in the main collection).
  stack = await startUiStack({ name: 'previews', service: { seed: 7, sets: SETS, slots: 2, mediaFaults: true }, viewport: { width: 1280, height: 800 } });
}, 180_000);

afterAll(async () => {
  await stack?.close();
  if (checkSetting !== undefined) process.env.DATASET_SYNC_MEDIA_CHECK = checkSetting;
});

describe('Sets tab previews and playback', () => {
  it('shows a thumbnail per verified file, plays one, filters, and fits the page to the window', async () => {
    const { page, bridge, service, datasetDir } = stack;
    const client = service.clients[0]!;
    const collectionId = client.collections[0]!;
    await page.goto(bridge.url);
    await page.getByLabel('Base URL').fill(service.deliveryBaseUrl);
    await page.getByLabel('API key').fill(client.apiKey);
    await page.getByRole('button', { name: 'Connect' }).click();
    const card = page.locator(`[data-collection-id="${collectionId}"]`);
    await card.waitFor();
    await card.getByRole('button').first().click();
    await page.getByRole('button', { name: 'Folder…' }).click();
    await expect.poll(() => page.getByTestId('dataset-folder').textContent()).toBe(datasetDir);
    await page.getByRole('tab', { name: 'Sync' }).click();
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    await page.getByTestId('sync-result').waitFor({ timeout: 60_000 });

    // With a folder, the Sets tab opens on the dataset's own sets.
    await page.getByRole('tab', { name: 'Sets' }).click();
    expect(await page.getByLabel('Status').inputValue()).toBe('dataset');
    const pager = page.getByTestId('dataset-sets-pager');
    await expect.poll(() => pager.textContent()).toMatch(new RegExp(`of ${SETS} sets in the dataset$`));
    const rows = page.locator('article.dataset-set');
    await rows.first().waitFor();

    const hasFfmpeg = ffmpegPresent();
    const thumbs = page.locator('article.dataset-set img');
    await thumbs.first().waitFor();
    // Without ffmpeg the app says why the thumbnails are placeholders (once the first is asked for).
    if (!hasFfmpeg) await page.getByText('Video thumbnails need ffmpeg, which was not found on this computer').waitFor({ timeout: 30_000 });
    // The notices read, the window's height goes to the sets (the page size follows it).
    await dismissNotices(page);
    for (const [width, height] of [
      [800, 800],
      [1280, 900],
    ] as const) {
      await page.setViewportSize({ width, height });
      // The page size fills the window: several sets fit at 800 px high, wholly visible, and nothing
      // scrolls sideways. Count and place in one look: the page size changes with the layout.
      const thirdSet = async () => {
        await page.evaluate(() => window.scrollTo(0, 0));
        return page.evaluate((h) => {
          const sets = document.querySelectorAll('article.dataset-set');
          if (sets.length < 3) return `only ${sets.length} sets on the page`;
          const bottom = sets[2]!.getBoundingClientRect().bottom;
          return bottom <= h ? 'wholly visible' : `the third set ends at ${Math.round(bottom)} px`;
        }, height);
      };
      await expect.poll(thirdSet, { message: `${width}×${height}` }).toBe('wholly visible');
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), `${width}×${height}`).toBeLessThanOrEqual(0);
      // Every thumbnail on the page has loaded: a decoded JPEG (or the placeholder without ffmpeg).
      // Loaded and widths in one look: the page can grow a set between two reads.
      const loadedWidths = () =>
        thumbs.evaluateAll((imgs) => {
          const all = imgs as HTMLImageElement[];
          if (all.length === 0 || !all.every((i) => i.complete && i.naturalWidth > 0)) return 'loading';
          return [...new Set(all.map((i) => i.naturalWidth))].sort((a, b) => a - b);
        });
      if (hasFfmpeg) await expect.poll(loadedWidths, { timeout: 60_000, message: `${width}×${height}` }).toEqual([160]);
      else await expect.poll(loadedWidths, { timeout: 60_000, message: `${width}×${height}` }).not.toBe('loading');
    }
    if (hasFfmpeg) {
      const firstSet = Number(await rows.first().getAttribute('data-set-id'));
      const names = await rows.first().locator('li.thumb').evaluateAll((lis) => lis.map((li) => (li as HTMLElement).dataset.file ?? ''));
      expect(names.length).toBeGreaterThan(0);
      expect(firstSet).toBeGreaterThan(0);
      await expect(access(join(datasetDir, '.dataset-sync', 'thumbs'))).resolves.toBeUndefined();
    }

    // Page size follows the window height: a short window shows fewer sets than a tall one.
    await page.setViewportSize({ width: 1280, height: 560 });
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(1);
    const short = await rows.count();
    await page.setViewportSize({ width: 1280, height: 1400 });
    await expect.poll(() => rows.count()).toBeGreaterThan(short);
    await page.setViewportSize({ width: 1280, height: 800 });

    // Play the first file: the <video> gets data through Range requests to the bridge.
    await page.locator('article.dataset-set .thumb-button').first().click();
    const video = page.locator('dialog.player video');
    await video.waitFor();
    await expect.poll(() => video.evaluate((v) => (v as HTMLVideoElement).readyState), { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    expect(await video.evaluate((v) => (v as HTMLVideoElement).error)).toBeNull();
    await docScreenshot(page, 'sets-player');
    await page.getByRole('button', { name: 'Close' }).click();
    await video.waitFor({ state: 'detached' });

    // The media check's findings, in words on the file they concern; the filter keeps those sets.
    if (hasFfprobe) {
      await page.getByLabel('Media check').selectOption('problems');
      await expect.poll(() => rows.evaluateAll((as) => as.length > 0 && as.every((a) => a.querySelector('.thumb .badge.tone-warn') !== null))).toBe(true);
      const words = await page.locator('.thumb .badge.tone-warn').allTextContents();
      expect(words.join(' ')).not.toMatch(/min_|max_|_/); // plain words, not the rule keys of media.csv
      await docScreenshot(page, 'sets-media-check');
      await page.getByLabel('Media check').selectOption('');
    }

    // Filters: gold only, then a set id search.
    await page.getByLabel('Gold').selectOption('gold');
    // The pager read the same before the filtered page came: wait for the rows themselves.
    await expect.poll(() => rows.evaluateAll((as) => as.length > 0 && as.every((a) => a.querySelector('.badge.gold') !== null))).toBe(true);
    await expect.poll(() => pager.textContent()).toMatch(/· \d+ of \d+ sets in the dataset/);
    await page.getByLabel('Gold').selectOption('');
    const firstId = (await rows.first().getAttribute('data-set-id')) ?? '';
    await page.getByLabel('Set id').fill(firstId);
    await expect.poll(() => rows.evaluateAll((as, id) => as.length > 0 && as.every((a) => ((a as HTMLElement).dataset.setId ?? '').includes(id)), firstId)).toBe(true);
    // Show in folder: the bridge has no file manager, it says so and names the path.
    const only = rows.first();
    expect(await only.getAttribute('data-set-id')).toBe(firstId);
    await only.getByRole('button', { name: 'Show in folder', exact: true }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'not available in the browser' }).textContent()).toContain(join(datasetDir, 'sets', firstId));
    await page.getByLabel('Set id').fill('');
    await expect.poll(() => pager.textContent()).toMatch(new RegExp(`· ${SETS} of ${SETS} sets in the dataset$`));

    await page.evaluate(() => window.scrollTo(0, 0));
    await docScreenshot(page, 'sets');
  });

  it('the bridge refuses media URLs without its token, and files outside the dataset', async () => {
    const { bridge, service } = stack;
    const collectionId = service.clients[0]!.collections[0]!;
    const wrong = await fetch(`${bridge.origin}/media/not-the-token/video/${collectionId}/1/x.mp4`);
    expect(wrong.status).toBe(403);
    const none = await fetch(`${bridge.origin}/media/`);
    expect(none.status).toBe(403);
    const outside = await fetch(`${bridge.origin}/media/${bridge.token}/video/${collectionId}/1/..%2F..%2Fmanifest.csv`);
    expect(outside.status).toBe(404);
    const state = await fetch(`${bridge.origin}/media/${bridge.token}/video/${collectionId}/1/state.json`);
    expect(state.status).toBe(404);
  });
});

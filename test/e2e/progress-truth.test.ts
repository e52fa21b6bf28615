// End-to-end (real Chromium through the web bridge, real engine, reference service, real disk):
// the progress a window shows during a 200-set sync tells the truth. Every change of the bar and
// the progress line is recorded in the page (a MutationObserver), and every progress event the
// bridge pushes is read off its WebSocket: the percentage never goes back, "sets n of N" shows
// N = the collection's accepted sets from the first progress on, done counts never fall, the
// phases are named (listing and downloading together while they overlap), totals are marked
// "about" while sets are listed, the page walk's back-off counts down, transfers in flight are
// pinned on top with their own speed, and a failed file unfolds to plain words with a working
// Copy button.
// The sync panel mid-sync is saved as docs/screenshots/sync.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { ProgressEvent } from '../../src-shared/sync-events';
import { dismissNotices, startBrowserApp, type BrowserApp } from '../support/browser-app';
import { recordPushedProgress } from '../support/pushed-progress';
import { docScreenshot } from '../support/doc-screenshot';

const SETS = 200;
const FILE_SIZE = 24 * 1024;
/** 512 B every 400 ms: about 1.3 KB/s (above the 1 KiB/s stall floor), so a trickled 24 KiB file stays in flight for ~19 s. */
const TRICKLE = { type: 'trickle', bytes: 512, everyMs: 400 } as const;

let app: BrowserApp;
let page: Page;
/** Progress events as the bridge pushed them to the page. */
const pushed: ProgressEvent[] = [];

/** What the window showed at one change of the sync panel. */
interface Shown {
  pct: number | null;
  text: string;
  /** Data-state of the rendered file rows, top to bottom. */
  rowStates: string[];
  /** The dataset card's "Still to download". */
  toDownload: string;
}

beforeAll(async () => {
  app = await startBrowserApp({
    name: 'progress',
    service: { seed: 21, sets: SETS, fileSize: FILE_SIZE, slots: 2 },
    connected: true,
    pickFolderAnswer: (root) => join(root, 'dataset'),
    viewport: { width: 1280, height: 1220 },
  });
  page = app.page;
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(app.bridge.url).origin });
  recordPushedProgress(page, pushed);
});

afterAll(async () => {
  await app?.close();
});

/** Records every change of the progress bar, the progress line and the file rows' order, in the page. */
async function recordWhatIsShown(): Promise<void> {
  await page.evaluate(() => {
    const log: Shown[] = [];
    (window as unknown as { shown: Shown[] }).shown = log;
    let last = '';
    const sample = () => {
      const bar = document.querySelector('[role="progressbar"][aria-label="Overall sync progress"]');
      const text = document.querySelector('[data-testid="overall-progress"]')?.textContent ?? '';
      const rowStates = [...document.querySelectorAll<HTMLElement>('[role="row"][data-file-id]')].map((r) => r.dataset.state ?? '');
      const pct = bar ? Number(bar.getAttribute('aria-valuenow')) : null;
      const toDownload = document.querySelector('[data-testid="card-to-download"]')?.textContent ?? '';
      const key = `${pct}|${text}|${rowStates.join(',')}|${toDownload}`;
      if (key === last) return;
      last = key;
      log.push({ pct, text, rowStates, toDownload });
    };
    new MutationObserver(sample).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['aria-valuenow', 'data-state'] });
  });
}

const shown = () => page.evaluate(() => (window as unknown as { shown: Shown[] }).shown);

/** The set records in the order the engine's walk lists them (one page of 200). */
async function listedSets(collectionId: number, apiKey: string): Promise<Array<{ id: number; files: Array<{ id: number; filename: string }> }>> {
  const res = await fetch(`${app.service.deliveryBaseUrl}/collections/${collectionId}/sets?status=accepted&page=1&per_page=200`, { headers: { authorization: `Bearer ${apiKey}` } });
  const body = (await res.json()) as { data?: unknown; sets?: unknown };
  const sets = (body.data ?? body.sets) as Array<{ id: number; files: Array<{ id: number; filename: string }> }>;
  expect(sets).toHaveLength(SETS);
  return sets;
}

const IN_FLIGHT = new Set(['downloading', 'retrying']);

describe('progress truth on a 200-set sync', () => {
  it('never goes back, knows N from the start, names phases, counts a retry down, pins transfers in flight, explains a failure', { timeout: 120_000 }, async () => {
    const { service, bridge } = app;
    const client = service.clients[0]!;
    const collectionId = client.collections[0]!;
    const sets = await listedSets(collectionId, client.apiKey);
    const notServed = sets[5]!.files[0]!;
    const corrupt = sets[10]!.files[1]!;
    const trickled = [sets[120]!.files[0]!, sets[120]!.files[1]!, sets[121]!.files[0]!];

    await page.goto(bridge.url);
    await page.locator(`[data-collection-id="${collectionId}"]`).getByRole('button').first().click();
    await page.getByRole('tab', { name: 'Sync' }).click();
    await page.getByRole('button', { name: 'Folder…' }).click();
    await expect.poll(() => page.getByTestId('dataset-folder').textContent()).toBe(join(app.root, 'dataset'));
    // The card of a first sync samples page 1 of the sets for its size estimate: let that request
    // be made before the one-shot 429 below, which is meant for the sync's walk.
    await expect.poll(() => page.getByTestId('card-to-download').textContent(), { timeout: 20_000 }).toMatch(/estimated from the first/);

    // The first page of sets is refused once with Retry-After: 4 (the walk backs off, counting down);
    // one file is gone (404), one always arrives corrupt, three trickle so they stay in flight.
    await service.admin.addFault({ api: 'delivery', path: '^/collections/\\d+/sets$' }, { type: 'rate_limit', retryAfter: 4 }, 1);
    await service.admin.addFault({ api: 'delivery', path: `^/files/${notServed.id}$` }, { type: 'status', status: 404 });
    await service.admin.addFault({ api: 'delivery', path: `^/files/${corrupt.id}$` }, { type: 'flip', atByte: 100 });
    for (const f of trickled) await service.admin.addFault({ api: 'delivery', path: `^/files/${f.id}$` }, TRICKLE, 1);

    await recordWhatIsShown();
    await page.getByRole('button', { name: 'Sync', exact: true }).click();

    // The back-off of the walk, counting down.
    const countdown = page.getByTestId('retry-countdown');
    await expect.poll(() => countdown.textContent(), { timeout: 20_000 }).toMatch(/^retrying: attempt 2 of 6 in [1-4] s$/);

    // A failed file: its row unfolds (by keyboard) to plain words; Copy puts them on the clipboard.
    const goneRow = page.locator(`[role="row"][data-file-id="${notServed.id}"]`);
    await goneRow.waitFor({ timeout: 30_000 });
    const toggle = goneRow.getByRole('button', { name: 'Failed: No longer offered', exact: true });
    await expect.poll(() => toggle.getAttribute('aria-expanded'), { timeout: 30_000 }).toBe('false');
    await toggle.focus();
    await page.keyboard.press('Enter');
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    const details = page.locator(`#${await toggle.getAttribute('aria-controls')}`);
    expect(await details.textContent()).toContain('The service no longer offers this file');
    expect(await details.textContent()).not.toContain('/api/v1/partner');
    // By keyboard too: the rows move while files finish, and a pointer click aimed at a button that
    // moves between Playwright's checks and the press can land on another row (this step once timed
    // out waiting for the confirmation in a full CI run, 2026-12-03, and passed alone).
    await details.getByRole('button', { name: 'Copy' }).focus();
    await page.keyboard.press('Enter');
    // Whatever the status says once it says something (a clipboard refusal words itself too).
    const status = details.getByRole('status');
    await expect.poll(() => status.textContent(), { timeout: 30_000 }).not.toBe('');
    expect(await status.textContent()).toBe('Copied to the clipboard.');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain(`File: sets/${sets[5]!.id}/${notServed.filename}`);
    expect(copied).toContain('Problem: No longer offered.');
    expect(copied).not.toContain(client.apiKey);
    // The table renders only the rows near its view (virtualised), and the keyboard steps above may
    // have scrolled it: the rows are read with the list at its top, in one look (a row found and then
    // read could have left the DOM in between), as someone checking the pinned rows would see them.
    const rowsAtTop = () => page.getByRole('rowgroup', { name: 'File rows (scrollable)' }).evaluate((el) => el.scrollTo(0, 0));
    const shownRow = async (id: number) => {
      await rowsAtTop();
      return page.evaluate((fileId) => {
        const row = document.querySelector<HTMLElement>(`[role="row"][data-file-id="${fileId}"]`);
        return row ? { state: row.dataset.state, text: row.textContent ?? '' } : null;
      }, id);
    };
    // State and words from the same look: rows pinned above it can push the failed row out of the window between two.
    const failedWords = async () => {
      const row = await shownRow(corrupt.id);
      return row?.state === 'failed' ? row.text : `state ${row?.state ?? 'not shown'}`;
    };
    await expect.poll(failedWords, { timeout: 30_000 }).toContain('Failed: Arrived damaged');

    // Transfers in flight: pinned on top with their own speed while finished rows sit below.
    const firstRows = page.locator('[role="row"][data-file-id]');
    await expect
      .poll(async () => {
        await rowsAtTop();
        return (await firstRows.evaluateAll((rows) => rows.slice(0, 3).map((r) => (r as HTMLElement).dataset.fileId))).sort();
      }, { timeout: 30_000 })
      .toEqual(trickled.map((f) => String(f.id)).sort());
    await expect.poll(() => firstRows.nth(0).getByTestId('file-speed').textContent()).toMatch(/^\d+(\.\d+)? (B|KiB)\/s$/);
    // Then the failures, then the finished rows. Polled: while more transfers are in flight than the
    // table renders rows (runs have shown 20 of 20 rows "downloading"), no finished row is in the DOM.
    const groupsAtTop = async () => {
      await rowsAtTop();
      const states = await firstRows.evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.state ?? ''));
      const groups = states.map((st) => (IN_FLIGHT.has(st) ? 'in flight' : st === 'failed' || st === 'verified' ? st : 'other'));
      return groups.filter((g, i) => i === 0 || g !== groups[i - 1]).join(', ');
    };
    await expect.poll(groupsAtTop, { timeout: 30_000 }).toMatch(/^in flight, failed, verified/);
    // Every set listed, only the trickled transfers left: the phase says so.
    await expect.poll(() => page.getByTestId('overall-progress').textContent(), { timeout: 20_000 }).toMatch(/ · sets \d+ of 200 · .* · downloading · /);
    await rowsAtTop();
    expect((await firstRows.evaluateAll((rows) => rows.slice(0, 3).map((r) => (r as HTMLElement).dataset.state))).every((st) => st === 'downloading')).toBe(true);
    // Once the rate window holds only the trickles, the rate and ETA are theirs (for the screenshot).
    await expect.poll(() => page.getByTestId('overall-progress').textContent(), { timeout: 10_000 }).toMatch(/ · (\d+ B|\d(\.\d+)? KiB)\/s · /);
    await dismissNotices(page);
    await page.getByRole('heading', { name: 'Files' }).scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollTo(0, 0));
    await docScreenshot(page, 'sync');
    // The dataset card does not pass the last sync's figures off as this one's.
    expect(await page.getByTestId('card-on-disk').textContent()).toContain('as of the last sync');

    const result = page.getByTestId('sync-result');
    await expect.poll(() => result.textContent(), { timeout: 60_000 }).toMatch(/^Last sync: \d+ downloaded, 0 up to date, 2 failed\./);
    // Finishing with failures is said in the window (with counts) and by the OS.
    await page.locator('.toast', { hasText: /finished with failures: \d+ downloaded, 0 up to date, 2 failed/ }).waitFor();
    expect(bridge.notifications.some((n) => n.title === 'Sync finished with failures' && n.body.includes('2 file(s)'))).toBe(true);

    // What the window showed, from the first progress to the end.
    const log = (await shown()).filter((s) => s.pct !== null);
    expect(log.length).toBeGreaterThan(10);
    const sets0 = /sets (\d+) of (\d+)/.exec(log[0]!.text);
    expect(sets0?.[2], log[0]!.text).toBe(String(SETS));
    let before = { pct: 0, setsDone: 0, filesDone: 0 };
    for (const s of log) {
      const m = /^(\d+)% · sets (\d+) of (\d+) · .* · files (\d+)(?: of (?:about )?\d+| \(totals known once the first sets are listed\))/.exec(s.text);
      expect(m, s.text).not.toBeNull();
      const now = { pct: s.pct!, setsDone: Number(m![2]), filesDone: Number(m![4]) };
      expect(Number(m![1])).toBe(s.pct);
      expect(Number(m![3]), s.text).toBe(SETS);
      expect(now.pct, s.text).toBeGreaterThanOrEqual(before.pct);
      expect(now.setsDone, s.text).toBeGreaterThanOrEqual(before.setsDone);
      expect(now.filesDone, s.text).toBeGreaterThanOrEqual(before.filesDone);
      before = now;
      // Pinned: no transfer in flight below a row that is not.
      const firstIdle = s.rowStates.findIndex((st) => !IN_FLIGHT.has(st));
      expect(firstIdle === -1 || !s.rowStates.slice(firstIdle).some((st) => IN_FLIGHT.has(st)), s.rowStates.join(',')).toBe(true);
    }
    expect(log.at(-1)!.pct).toBe(100);
    // Totals: never "0 B of 0 B" while nothing is listed; "about" while sets are listed with
    // transfers running, and the phase says both; exact once every set is listed.
    expect(log.some((s) => / 0 B of 0 B /.test(s.text))).toBe(false);
    expect(log.some((s) => / of about .* · files \d+ of about \d+ · listing sets and downloading · /.test(s.text))).toBe(true);
    for (const s of log.filter((s) => / · downloading · /.test(s.text) && !/listing/.test(s.text))) expect(s.text).not.toMatch(/ of about /);
    // The card's "Still to download" is of the same estimate while sets are listed, and says so.
    expect(log.some((s) => / of about /.test(s.text) && /^about .+ \(estimated while sets are listed\)$/.test(s.toDownload))).toBe(true);
    const phases = new Set(log.map((s) => /· (listing sets|retrying|downloading|checking partial downloads|writing the manifest)\b/.exec(s.text)?.[1]).filter(Boolean));
    expect([...phases]).toEqual(expect.arrayContaining(['listing sets', 'retrying', 'downloading']));
    const countdowns = log.map((s) => /retrying: attempt 2 of 6 in (\d) s/.exec(s.text)?.[1]).filter((v): v is string => v !== undefined).map(Number);
    expect(new Set(countdowns).size, countdowns.join(',')).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < countdowns.length; i++) expect(countdowns[i]!).toBeLessThanOrEqual(countdowns[i - 1]!);

    // The events the bridge pushed say the same.
    expect(pushed.length).toBeGreaterThan(10);
    expect(pushed[0]!.setsTotal).toBe(SETS);
    expect(pushed[0]!.estimated).toBe(true);
    for (let i = 1; i < pushed.length; i++) {
      const [a, b] = [pushed[i - 1]!, pushed[i]!];
      expect(b.fraction).toBeGreaterThanOrEqual(a.fraction);
      expect(b.setsDone).toBeGreaterThanOrEqual(a.setsDone);
      expect(b.filesDone).toBeGreaterThanOrEqual(a.filesDone);
      expect(b.bytesDone).toBeGreaterThanOrEqual(a.bytesDone);
      expect(b.setsTotal).toBe(SETS);
    }
    expect(pushed.some((p) => p.phase === 'retrying' && p.retry?.attempt === 2)).toBe(true);
  });
});

// The window's points of the third user's-eye review (issue 23), in real Chromium through the
// web bridge (real handlers, engine and disk) and the reference service, at 800 and 1280 px:
// a chosen folder is checked at once, status reads the same everywhere, notices, navigation and
// identity, and narrow windows.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bridge } from '../../scripts/web-bridge/server';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';

describe.each([800, 1280])('at %i px', (width) => {
  let app: BrowserApp;
  let root: string;
  let service: BrowserApp['service'];
  let bridge: Bridge;
  let page: Page;
  /** What "Folder…" answers next. */
  let picked = '';

  beforeAll(async () => {
    app = await startBrowserApp({ name: `round3-${width}`, service: { seed: 23, sets: 4, fileSize: 24 * 1024, slots: 3 }, connected: true, pickFolderAnswer: () => picked, viewport: { width, height: 900 } });
    ({ root, service, bridge, page } = app);
  });

  afterAll(async () => {
    await app?.close();
  });

  const main = () => service.clients[0]!.collections[0]!;
  const second = () => service.clients[0]!.collections[1]!;

  async function openSyncTab(collectionId: number): Promise<void> {
    await page.goto(bridge.url);
    await page.reload();
    await page.locator(`[data-collection-id="${collectionId}"]`).getByRole('button').first().click();
    await page.getByRole('tab', { name: 'Sync' }).click();
  }

  async function choose(folder: string): Promise<void> {
    picked = folder;
    await page.getByRole('button', { name: 'Folder…' }).click();
  }

  async function syncOnce(): Promise<void> {
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    await expect.poll(() => page.getByTestId('sync-result').textContent(), { timeout: 45_000 }).toMatch(/Last sync: \d+ downloaded, \d+ up to date, 0 failed\./);
  }

  it('a folder that holds another collection, lies inside a dataset or cannot be written to is refused in words at once', { timeout: 120_000 }, async () => {
    const secondFolder = join(root, 'second');
    await openSyncTab(second());
    await choose(secondFolder);
    await expect.poll(() => page.getByTestId('dataset-folder').textContent()).toBe(secondFolder);
    await syncOnce();

    await openSyncTab(main());
    const alert = page.locator('.dataset-folder [role="alert"]');
    await choose(secondFolder);
    await expect.poll(() => alert.textContent()).toBe(`No folder was chosen. ${secondFolder} is already the dataset folder of collection ${second()}. Each collection needs its own folder.`);
    await choose(join(secondFolder, 'sets'));
    await expect.poll(() => alert.textContent()).toMatch(/is inside the dataset folder of collection \d+/);
    await choose(`${secondFolder}.consents`);
    await expect.poll(() => alert.textContent()).toMatch(/is inside the consents folder of collection \d+/);
    await choose('/proc/not-writable');
    await expect.poll(() => alert.textContent()).toMatch(/^No folder was chosen\. The app cannot write to \/proc .+Choose a folder you can write to\.$/);
    // Nothing of the other collection is shown as this one's.
    expect(await page.getByTestId('dataset-folder').textContent()).toBe('No folder chosen yet');
    expect(await page.getByTestId('dataset-card').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Verify' }).isDisabled()).toBe(true);

    // An empty folder is taken, and the error goes.
    const mainFolder = join(root, 'main');
    await choose(mainFolder);
    await expect.poll(() => page.getByTestId('dataset-folder').textContent()).toBe(mainFolder);
    expect(await alert.count()).toBe(0);

    // Before its first sync the card says what is known: the accepted sets, and their size estimated from the first page.
    await expect.poll(() => page.getByTestId('card-to-download').textContent()).toMatch(/^about \S+ \S+ \(4 accepted sets, estimated from the first 4 listed\)$/);
    // The list shows set counts (the detail's) and what each folder holds.
    await page.getByRole('button', { name: '← Collections' }).click();
    const sets = (id: number) => page.locator(`[data-collection-id="${id}"]`).getByTestId('list-sets');
    await expect.poll(() => sets(main()).textContent()).toBe('4 accepted');
    await expect.poll(() => sets(second()).textContent()).toMatch(/^3 accepted · 3 on disk \(\S+ \S+\)$/);
  });

  /** Whether `selector`'s boxes overlap any control outside them (a notice must never cover one). */
  function overlapsControl(selector: string): Promise<string[]> {
    return page.evaluate((sel) => {
      const covers = [...document.querySelectorAll(sel)].map((e) => e.getBoundingClientRect());
      const hit = (a: DOMRect, b: DOMRect) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      return [...document.querySelectorAll('button, select, input, textarea, a[href]')]
        .filter((c) => !c.closest(sel) && c.getBoundingClientRect().width > 0)
        .filter((c) => covers.some((r) => hit(r, c.getBoundingClientRect())))
        .map((c) => c.textContent || c.getAttribute('aria-label') || c.tagName);
    }, selector);
  }

  it('notices: success goes by itself, an error names the collection and stays, none covers a control, none survives an account switch', { timeout: 120_000 }, async () => {
    await openSyncTab(main());
    const title = (await page.getByRole('heading', { level: 2 }).first().textContent())!.trim();
    await syncOnce();
    const done = page.locator('.toast', { hasText: `Sync of "${title}" finished: ` });
    await done.waitFor();
    expect(await overlapsControl('.toast')).toEqual([]);
    await done.waitFor({ state: 'detached', timeout: 30_000 });

    // A failure before the sync learns the title from the service still names it by its title.
    await service.admin.addFault({ api: 'delivery', path: '^/collections/\\d+$' }, { type: 'status', status: 403 });
    try {
      await page.getByRole('button', { name: 'Sync', exact: true }).click();
      const failed = page.locator('.toast-error', { hasText: `Sync of "${title}" failed: ` });
      await failed.waitFor({ timeout: 45_000 });
      expect(await overlapsControl('.toast')).toEqual([]);
      // The automatic sync selector and the gold-standard checkbox stay free with the error shown.
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByLabel('Automatic sync').waitFor();
      expect(await overlapsControl('.toast')).toEqual([]);
      expect(await failed.count()).toBe(1);

      // "Delivery" on Settings goes back to the collections.
      await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('button', { name: 'Delivery' }).click();
      await page.getByRole('heading', { name: 'Collections', exact: true }).waitFor();

      // Another account (the second client's key): the first account's error goes.
      const other = service.clients[1]!;
      await page.getByRole('button', { name: /Signed in as/ }).click();
      await page.getByRole('button', { name: 'Add another account…' }).click();
      await page.getByLabel('API key').fill(other.apiKey);
      await page.getByRole('button', { name: /^Connect/ }).click();
      await expect.poll(() => page.getByTestId('header-client-name').textContent()).toBe(other.name);
      expect(await page.locator('.toast').count()).toBe(0);
    } finally {
      await service.admin.clearFaults();
    }

    // The header's account menu switches back in one click.
    await page.getByRole('button', { name: /Signed in as/ }).click();
    await page.getByRole('group', { name: 'Accounts' }).getByRole('button', { name: new RegExp(`^${service.clients[0]!.name} · `) }).click();
    await expect.poll(() => page.getByTestId('header-client-name').textContent()).toBe(service.clients[0]!.name);
    // Back on the first account, the collection's last run is said once: no "no sync yet" above it.
    await page.locator(`[data-collection-id="${main()}"]`).getByRole('button').first().click();
    await page.getByRole('tab', { name: 'Sync' }).click();
    await expect.poll(() => page.getByTestId('sync-result').textContent()).toMatch(/^Sync stopped: /);
    expect(await page.getByText('No sync in this session yet.').count()).toBe(0);
  });

  /** The page scrolls sideways, or a text that should be whole is cut (ellipsis): what, in words. */
  function cutOrWide(): Promise<string[]> {
    return page.evaluate(() => {
      const out: string[] = [];
      const root = document.documentElement;
      if (root.scrollWidth > window.innerWidth) {
        out.push(`page ${root.scrollWidth} px wide in ${window.innerWidth}`);
        // Name the outermost elements that reach past the window, so a failure says where to look.
        const past = [...document.querySelectorAll<HTMLElement>('body *')].filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1);
        for (const el of past.filter((el) => !past.includes(el.parentElement!)).slice(0, 3)) out.push(`past the edge: <${el.tagName.toLowerCase()} class="${el.className}">`);
      }
      for (const el of document.querySelectorAll<HTMLElement>('.theme-toggle, .account-button, .settings-button, .rc-org, .workspaces button, [role="tab"], .key-scopes')) {
        if (el.getBoundingClientRect().width > 0 && el.scrollWidth > el.clientWidth + 1) out.push(`cut: ${el.textContent?.trim()}`);
      }
      return out;
    });
  }

  it('every screen fits the window without scrolling sideways or cutting the header', { timeout: 120_000 }, async () => {
    await page.goto(bridge.url);
    await page.reload();
    await page.getByRole('heading', { name: 'Collections', exact: true }).waitFor();
    const seen: Record<string, string[]> = {};
    seen.collections = await cutOrWide();
    await page.locator(`[data-collection-id="${main()}"]`).getByRole('button').first().click();
    for (const tab of ['Overview', 'Sync', 'Sets']) {
      await page.getByRole('tab', { name: tab }).click();
      await page.waitForLoadState('networkidle');
      seen[tab] = await cutOrWide();
    }
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByLabel('Automatic sync').waitFor();
    seen.settings = await cutOrWide();
    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('button', { name: 'Recruiter' }).click();
    await page.getByLabel('Recruiter API key').waitFor();
    seen.recruiterConnect = await cutOrWide();
    const org = service.organizations.find((o) => o.name === 'Acme Field Research')!;
    await page.getByLabel('Recruiter API key').fill(org.apiKey);
    await page.getByRole('button', { name: 'Connect recruiter key' }).click();
    await page.locator('table.rc-jobs tbody tr').first().waitFor();
    seen.jobs = await cutOrWide();
    await page.locator('table.rc-jobs tbody tr').first().getByRole('button').first().click();
    await page.locator('#rc-job-title').waitFor();
    seen.job = await cutOrWide();
    await page.getByRole('navigation', { name: 'Recruiter sections' }).getByRole('button', { name: 'Data Champs' }).click();
    await page.waitForLoadState('networkidle');
    seen.champs = await cutOrWide();
    await page.getByRole('navigation', { name: 'Recruiter sections' }).getByRole('button', { name: 'Jobs' }).click();
    await page.getByRole('button', { name: /New job/ }).click();
    await page.waitForLoadState('networkidle');
    seen.jobForm = await cutOrWide();
    await page.getByRole('button', { name: 'Forget recruiter key' }).click();
    expect(seen).toEqual(Object.fromEntries(Object.keys(seen).map((k) => [k, []])));
  });
});

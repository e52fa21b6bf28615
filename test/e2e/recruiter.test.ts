// End-to-end: the recruiter workspace in real Chromium through the real UI, against the
// browser test bridge (real main-process handlers) and the reference service's recruiter API
// over loopback HTTP. Screenshots land in test-artifacts/screens/recruiter-*.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildRenderer } from '../../scripts/web-bridge/build-renderer';
import { launchChromium } from '../support/chromium';
import { startBridge, type Bridge } from '../../scripts/web-bridge/server';
import { startReferenceService } from '../../src-service/index';

const SCREENS_DIR = join(process.cwd(), 'test-artifacts', 'screens');
const SMALL = { width: 1024, height: 700 } as const;
const LARGE = { width: 1280, height: 800 } as const;

let root: string;
let service: Awaited<ReturnType<typeof startReferenceService>>;
let bridge: Bridge;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'dataset-sync-e2e-recruiter-'));
  await mkdir(SCREENS_DIR, { recursive: true });
  const [rendererDir, started] = await Promise.all([
    buildRenderer(join(root, 'renderer')),
    startReferenceService({ seed: 7, sets: 1, slots: 1, fileSize: 1024, dataDir: join(root, 'media') }),
  ]);
  service = started;
  const client = service.clients[0]!;
  // The delivery side is already connected: the Recruiter tab shows once a delivery key is in.
  bridge = await startBridge({
    rendererDir,
    settingsDir: join(root, 'settings'),
    baseUrl: service.deliveryBaseUrl,
    initialKeys: { [service.deliveryBaseUrl]: client.apiKey },
    pickFolderAnswer: () => null,
  });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: SMALL, colorScheme: 'light' });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

afterAll(async () => {
  await browser?.close();
  await bridge?.close();
  await service?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

async function screenshot(name: string, sizes: ReadonlyArray<{ width: number; height: number }> = [SMALL]): Promise<void> {
  for (const size of sizes) {
    await page.setViewportSize(size);
    await page.waitForTimeout(50); // let layout settle after a resize
    await page.screenshot({ path: join(SCREENS_DIR, `recruiter-${name}-${size.width}x${size.height}.png`) });
  }
  await page.setViewportSize(SMALL);
}

const acme = () => {
  const org = service.organizations.find((o) => o.name === 'Acme Field Research');
  if (!org) throw new Error('demo organization missing');
  return org;
};

const jobBadge = () => page.locator('#rc-job-title .rc-status');

describe('recruiter workspace end to end', () => {
  it('connects with the organization key and runs a job through its lifecycle', async () => {
    await page.goto(bridge.url);
    await page.getByTestId('header-client-name').waitFor();
    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('button', { name: 'Recruiter' }).click();

    // The recruiter key is its own: a separate form, pre-filled with the recruiter address.
    const address = page.getByLabel('Recruiter API address');
    expect(await address.inputValue()).toBe(service.recruiterBaseUrl);
    await page.getByLabel('Recruiter API key').fill('rk_live_not_a_real_key_0000');
    await page.getByRole('button', { name: 'Connect recruiter key' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.getAttribute('data-error-kind')).toBe('auth');
    await screenshot('connect-error');
    await page.getByLabel('Recruiter API key').fill(acme().apiKey);
    await page.getByRole('button', { name: 'Connect recruiter key' }).click();
    await expect.poll(() => page.getByTestId('recruiter-org-name').textContent()).toBe('Acme Field Research');
    // The key itself is nowhere on the page.
    expect(await page.content()).not.toContain(acme().apiKey);

    // Jobs list with state badges, and the state filter.
    const rows = page.locator('table.rc-jobs tbody tr');
    await rows.first().waitFor();
    const states = await page.locator('table.rc-jobs .rc-status').evaluateAll((b) => b.map((e) => (e as HTMLElement).dataset.status));
    expect(new Set(states)).toEqual(new Set(['draft', 'active', 'paused', 'closed']));
    await screenshot('jobs', [SMALL, LARGE]);
    await page.getByLabel('Job state').selectOption('active');
    await expect.poll(() => page.locator('table.rc-jobs .rc-status').evaluateAll((b) => b.map((e) => (e as HTMLElement).dataset.status))).toEqual(['active', 'active']);
    await page.getByLabel('Job state').selectOption('');

    // New job: the first submit misses the title (inline, no round trip)...
    await page.getByRole('button', { name: 'New job' }).click();
    await page.getByLabel('Description').fill('Count pedestrians at six crossings for two hours each.');
    await page.getByLabel('Job type').selectOption('survey');
    await page.getByLabel('Rate', { exact: true }).fill('140');
    await page.getByLabel('Positions').fill('5000');
    await page.getByLabel('Required skills').fill('survey, smartphone');
    await page.getByRole('button', { name: 'Create draft' }).click();
    const titleError = page.locator('[data-field-error="title"]');
    await titleError.waitFor();
    expect(await titleError.textContent()).toBe('Enter a title.');
    expect(await page.getByLabel('Title').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('rc-job-title');
    await screenshot('job-form-inline-error');

    // ...then the service's 422 lands on the field it names (at most 1000 positions).
    await page.getByLabel('Title').fill('Pedestrian count in Kreuzberg');
    await page.getByRole('button', { name: 'Create draft' }).click();
    const positionsError = page.locator('[data-field-error="number_of_positions"]');
    await positionsError.waitFor();
    expect(await positionsError.textContent()).toContain('1 to 1000');
    await screenshot('job-form-server-error');
    await page.getByLabel('Positions').fill('4');
    await page.getByRole('button', { name: 'Create draft' }).click();

    // The job page: only the legal moves are offered at each state.
    await expect.poll(() => page.locator('#rc-job-title').textContent()).toContain('Pedestrian count in Kreuzberg');
    const lifecycle = page.getByRole('group', { name: 'Job actions' });
    const moves = () => lifecycle.getByRole('button').allTextContents();
    expect(await jobBadge().getAttribute('data-status')).toBe('draft');
    expect(await moves()).toEqual(['Publish', 'Close job…', 'Edit']);
    await lifecycle.getByRole('button', { name: 'Publish' }).click();
    await expect.poll(() => jobBadge().getAttribute('data-status')).toBe('active');
    expect(await moves()).toEqual(['Pause', 'Close job…', 'Edit']);
    await lifecycle.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => jobBadge().getAttribute('data-status')).toBe('paused');
    expect(await moves()).toEqual(['Resume', 'Close job…', 'Edit']);
    await lifecycle.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => jobBadge().getAttribute('data-status')).toBe('active');

    // Closing asks first; Escape keeps the job open.
    await lifecycle.getByRole('button', { name: 'Close job…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await screenshot('close-confirm');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await jobBadge().getAttribute('data-status')).toBe('active');
    await lifecycle.getByRole('button', { name: 'Close job…' }).click();
    await dialog.getByRole('button', { name: 'Close job' }).click();
    await expect.poll(() => jobBadge().getAttribute('data-status')).toBe('closed');
    expect(await moves()).toEqual([]);

    // Back in the list, the new job shows as closed.
    await page.getByRole('button', { name: '← Jobs' }).click();
    const created = page.locator('table.rc-jobs tbody tr', { hasText: 'Pedestrian count in Kreuzberg' });
    await expect.poll(() => created.locator('.rc-status').getAttribute('data-status')).toBe('closed');
  });

  it('hires one applicant, rejects another with a reason, and shows matches', async () => {
    await page.locator('table.rc-jobs').getByRole('button', { name: 'Street survey in Berlin' }).click();
    await page.locator('table.rc-applications').waitFor();
    const pending = page.locator('table.rc-applications tr[data-status="pending"]');
    expect(await pending.count()).toBeGreaterThanOrEqual(2);
    // Actions only where legal: no approve on pending, no hire on rejected.
    expect(await pending.first().getByRole('button').allTextContents()).toEqual(['Shortlist', 'Hire', 'Reject…']);
    expect(await page.locator('tr[data-status="rejected"]').first().getByRole('button').count()).toBe(0);
    expect(await page.locator('tr[data-status="work_submitted"]').first().getByRole('button').allTextContents()).toEqual(['Approve work']);

    const hireId = await pending.nth(0).getAttribute('data-application-id');
    const rejectId = await pending.nth(1).getAttribute('data-application-id');
    await page.locator(`tr[data-application-id="${hireId}"]`).getByRole('button', { name: /^Hire / }).click();
    await expect.poll(() => page.locator(`tr[data-application-id="${hireId}"]`).getAttribute('data-status')).toBe('hired');

    await page.locator(`tr[data-application-id="${rejectId}"]`).getByRole('button', { name: /^Reject / }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/Reason/).fill('Not available on the survey dates.');
    await screenshot('reject-dialog');
    await dialog.getByRole('button', { name: 'Reject application' }).click();
    const rejected = page.locator(`tr[data-application-id="${rejectId}"]`);
    await expect.poll(() => rejected.getAttribute('data-status')).toBe('rejected');
    expect(await rejected.textContent()).toContain('Not available on the survey dates.');

    // Recommended matches with a score and the reasons for it.
    const match = page.locator('.rc-match').first();
    await match.waitFor();
    expect(Number(await match.locator('.rc-score span').textContent())).toBeGreaterThan(0);
    expect(await match.locator('.rc-reasons li').count()).toBeGreaterThan(0);
    await screenshot('job', [SMALL, LARGE]);
  });

  it('searches Data Champs with filters and pages through', async () => {
    await page.getByRole('navigation', { name: 'Recruiter sections' }).getByRole('button', { name: 'Data Champs' }).click();
    const total = page.getByTestId('champ-total');
    await total.waitFor();
    expect(await total.textContent()).toBe('200 Data Champs');

    // A max below the min is caught in the form.
    await page.getByLabel('Min daily rate').fill('300');
    await page.getByLabel('Max daily rate').fill('100');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    expect(await page.locator('[data-field-error="maxRate"]').textContent()).toBe('The maximum is below the minimum.');

    await page.getByLabel('Skills').fill('survey');
    await page.getByLabel('Country').fill('Germany');
    await page.getByLabel('Availability').selectOption('available');
    await page.getByLabel('Min daily rate').fill('60');
    await page.getByLabel('Max daily rate').fill('400');
    await page.getByLabel('Verified only').check();
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(async () => (await total.textContent()) !== '200 Data Champs').toBe(true);
    const rows = page.locator('table.rc-champ-table tbody tr');
    expect(await rows.count()).toBeGreaterThan(0);
    for (const text of await rows.allTextContents()) {
      expect(text).toContain('Germany');
      expect(text).toContain('survey');
      expect(text).toContain('Verified');
      expect(text).toContain('Available');
    }

    // A broader search spans pages.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Availability').selectOption('available');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const pageLabel = page.getByTestId('champ-page');
    await expect.poll(() => pageLabel.textContent()).toMatch(/^Page 1 of (?!1$)\d+$/);
    const firstPageNames = await rows.allTextContents();
    await page.getByRole('button', { name: 'Next →' }).click();
    await expect.poll(() => pageLabel.textContent()).toMatch(/^Page 2 of /);
    expect(await rows.allTextContents()).not.toEqual(firstPageNames);
    for (const cell of await page.locator('.rc-availability').allTextContents()) expect(cell).toBe('Available');
    await screenshot('champs', [SMALL, LARGE]);

    // Dark theme.
    await page.getByRole('button', { name: /^Theme:/ }).click(); // system -> light
    await page.getByRole('button', { name: /^Theme:/ }).click(); // light -> dark
    await screenshot('champs-dark');
    await page.getByRole('navigation', { name: 'Recruiter sections' }).getByRole('button', { name: 'Jobs' }).click();
    await page.locator('table.rc-jobs tbody tr').first().waitFor();
    await screenshot('jobs-dark');
    await page.getByRole('button', { name: /^Theme:/ }).click(); // dark -> system

    // Forgetting the recruiter key leaves the delivery connection alone.
    await page.getByRole('button', { name: 'Forget recruiter key' }).click();
    await page.getByLabel('Recruiter API key').waitFor();
    expect(await page.getByTestId('header-client-name').textContent()).toBe(service.clients[0]!.name);
    expect(await bridge.services.connection.current()).not.toBeNull();
    expect(pageErrors).toEqual([]);
  });
});

// End-to-end: the recruiter workspace in real Chromium through the real UI, against the
// browser test bridge (real main-process handlers) and the reference service's recruiter API
// over loopback HTTP. Screenshots land in test-artifacts/screens/recruiter-*.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { testRenderer } from '../support/renderer-build';
import { launchChromium } from '../support/chromium';
import { startBridge, type Bridge } from '../../scripts/web-bridge/server';
import { startReferenceService } from '../../src-service/index';
import { docScreenshot } from '../support/doc-screenshot';

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
    testRenderer(),
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
}, 180_000); // building the renderer and starting Chromium on a loaded machine

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
const orgKey = (name: string) => {
  const org = service.organizations.find((o) => o.name === name);
  if (!org) throw new Error(`demo organization ${name} missing`);
  return org.apiKey;
};
/** The focused element, described well enough to assert where focus is. */
const focused = () =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return { tag: el?.tagName.toLowerCase(), id: el?.id, text: el?.textContent?.trim(), label: el?.getAttribute('aria-label') };
  });
/** The text a control's aria-describedby points at. */
const description = (locator: ReturnType<Page['locator']>) =>
  locator.evaluate((el) => (el.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' '));

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
    // Busy, the button was aria-disabled, not disabled: focus never fell to the page body.
    expect(await focused()).toMatchObject({ tag: 'button', text: 'Connect recruiter key' });
    await screenshot('connect-error');
    await page.getByLabel('Recruiter API key').fill(acme().apiKey);
    await page.getByRole('button', { name: 'Connect recruiter key' }).click();
    await expect.poll(() => page.getByTestId('recruiter-org-name').textContent()).toBe('Acme Field Research');
    // Opening a screen puts focus on its heading; a full key sees no scope notes.
    await expect.poll(focused).toMatchObject({ tag: 'h2', text: 'Jobs' });
    expect(await page.locator('.rc-scope-note').count()).toBe(0);
    // The key itself is nowhere on the page.
    expect(await page.content()).not.toContain(acme().apiKey);

    // Jobs list with state badges, and the state filter.
    const rows = page.locator('table.rc-jobs tbody tr');
    await rows.first().waitFor();
    const states = await page.locator('table.rc-jobs .rc-status').evaluateAll((b) => b.map((e) => (e as HTMLElement).dataset.status));
    expect(new Set(states)).toEqual(new Set(['draft', 'active', 'paused', 'closed']));
    // Each job says how many applications it has.
    const counts = await page.getByTestId('job-applications').allTextContents();
    expect(counts.every((c) => /^\d+$/.test(c))).toBe(true);
    expect(counts.some((c) => c !== '0')).toBe(true);
    await screenshot('jobs', [SMALL, LARGE]);
    await page.getByLabel('Job state').selectOption('active');
    await expect.poll(() => page.locator('table.rc-jobs .rc-status').evaluateAll((b) => b.map((e) => (e as HTMLElement).dataset.status))).toEqual(['active', 'active']);
    await page.getByLabel('Job state').selectOption('');

    // New job: the form's rules are the service's, each shown at its field without a round trip.
    await page.getByRole('button', { name: 'New job' }).click();
    await expect.poll(focused).toMatchObject({ tag: 'h2', text: 'New job' });
    await page.getByLabel('Description').fill('Count pedestrians at six crossings for two hours each.');
    await page.getByLabel('Job type').selectOption('survey');
    await page.getByLabel('Rate', { exact: true }).fill('1,250');
    await page.getByLabel('Positions').fill('5000');
    // An identifier the service does not use is said as typed, with the known one it resembles.
    await page.getByLabel('Required skills').fill('survey, video');
    await expect.poll(() => page.getByTestId('unknown-skills').textContent()).toBe('"video" is not a skill this service uses (did you mean "video_recording"?). Data Champs are matched by these identifiers exactly.');
    await page.getByLabel('Required skills').fill('survey, smartphone');
    await expect.poll(() => page.getByTestId('unknown-skills').count()).toBe(0);
    const createRequests = async () => (await service.admin.stats()).byRoute['recruiter POST /jobs'] ?? 0;
    const createsBefore = await createRequests();
    await page.getByRole('button', { name: 'Create draft' }).click();
    const fieldError = (field: string) => page.locator(`[data-field-error="${field}"]`);
    await fieldError('title').waitFor();
    expect(await fieldError('title').textContent()).toBe('Enter a title.');
    expect(await fieldError('rate').textContent()).toBe('"1,250" is ambiguous: write 1250 for thousands (no separators), or 1.25 for decimals.');
    expect(await fieldError('number_of_positions').textContent()).toBe('Enter a whole number from 1 to 1000.');
    expect(await page.getByLabel('Title').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('rc-job-title');
    await screenshot('job-form-inline-error');
    // The service allows at most 200 characters (validation.ts); the form says so, with the count.
    await page.getByLabel('Title').fill('P'.repeat(201));
    await page.getByRole('button', { name: 'Create draft' }).click();
    await expect.poll(() => fieldError('title').textContent()).toBe('Keep the title to 200 characters or fewer (it has 201).');
    expect(await createRequests()).toBe(createsBefore); // no round trip for any of it

    // A server stricter than the form (here one that lies): its 422 still lands on the field it names.
    await page.getByLabel('Title').fill('Pedestrian count in Kreuzberg');
    await page.getByLabel('Positions').fill('4');
    // "12,50" is a decimal comma: sent as 12.50.
    await page.getByLabel('Rate', { exact: true }).fill('12,50');
    await service.admin.addFault(
      { api: 'recruiter', method: 'POST', path: '^/jobs$' },
      { type: 'body', status: 422, contentType: 'application/json', body: JSON.stringify({ error: 'validation failed', errors: { number_of_positions: ['must be at most 3 for this organization'] } }) },
      1,
    );
    await page.getByRole('button', { name: 'Create draft' }).click();
    await expect.poll(() => fieldError('number_of_positions').textContent()).toBe('must be at most 3 for this organization');
    await screenshot('job-form-server-error');
    await page.getByRole('button', { name: 'Create draft' }).click();

    // The job page: only the legal moves are offered at each state.
    await expect.poll(() => page.locator('#rc-job-title').textContent()).toContain('Pedestrian count in Kreuzberg');
    await expect.poll(focused).toMatchObject({ tag: 'h2', id: 'rc-job-title' });
    expect(await page.locator('.rc-job-facts').textContent()).toContain('12.50 EUR');
    const lifecycle = page.getByRole('group', { name: 'Job actions' });
    const moves = () => lifecycle.getByRole('button').allTextContents();
    const notice = page.getByRole('status').filter({ hasText: /\S/ });
    expect(await jobBadge().getAttribute('data-status')).toBe('draft');
    expect(await moves()).toEqual(['Publish', 'Close job…', 'Edit']);
    // By keyboard: Publish replaces its own button, and focus moves to the move that took its place.
    await lifecycle.getByRole('button', { name: 'Publish' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => jobBadge().getAttribute('data-status')).toBe('active');
    expect(await moves()).toEqual(['Pause', 'Close job…', 'Edit']);
    expect(await notice.textContent()).toBe('Published: Data Champs can now apply.');
    await expect.poll(focused).toMatchObject({ tag: 'button', text: 'Pause' });
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
    // No move is left to hold focus: the notice saying what happened takes it.
    await expect.poll(focused).toMatchObject({ id: 'rc-job-notice', text: 'Closed: the job and its applications can no longer change.' });

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
    const hireRow = page.locator(`tr[data-application-id="${hireId}"]`);
    const applicant = (await hireRow.locator('td').first().evaluate((td) => td.firstChild?.textContent ?? '')).trim();
    // Hiring asks first; Cancel changes nothing and returns focus to Hire.
    await hireRow.getByRole('button', { name: /^Hire / }).click();
    const hireDialog = page.getByRole('dialog');
    expect(await hireDialog.getByRole('heading').textContent()).toBe(`Hire ${applicant}?`);
    expect(await hireDialog.textContent()).toContain('is told at once that they are hired for “Street survey in Berlin”');
    await screenshot('hire-confirm');
    await hireDialog.getByRole('button', { name: 'Cancel' }).click();
    await hireDialog.waitFor({ state: 'detached' });
    expect(await hireRow.getAttribute('data-status')).toBe('pending');
    expect((await focused()).label).toBe(`Hire ${applicant}`);
    await hireRow.getByRole('button', { name: /^Hire / }).click();
    await hireDialog.getByRole('button', { name: 'Hire', exact: true }).click();
    await expect.poll(() => hireRow.getAttribute('data-status')).toBe('hired');
    // Success is said, and focus stays in the row (Hire is gone: the row's remaining action).
    expect(await page.getByRole('status').filter({ hasText: /\S/ }).textContent()).toBe(`Hired ${applicant}.`);
    await expect.poll(async () => (await focused()).label).toBe(`Reject ${applicant}`);

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
    await page.getByLabel('Country').fill('DE'); // an ISO code searches for the country's name
    expect(await page.getByTestId('country-hint').textContent()).toBe('Searching for Germany');
    await page.getByLabel('Availability').selectOption('available');
    await page.getByLabel('Min daily rate').fill('60,50'); // a decimal comma, as in the job form
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
    const rates = await rows.evaluateAll((rs) => rs.map((r) => parseFloat((r as HTMLTableRowElement).cells[4]!.textContent ?? '')));
    for (const rate of rates) expect(rate).toBeGreaterThanOrEqual(60.5);

    // A broader search spans pages.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Availability').selectOption('available');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const pageLabel = page.getByTestId('champ-page');
    await expect.poll(() => pageLabel.textContent()).toMatch(/^Page 1 of (?!1$)\d+$/);
    const firstPageNames = await rows.allTextContents();
    await page.getByRole('button', { name: 'Next →' }).click();
    await expect.poll(() => pageLabel.textContent()).toMatch(/^Page 2 of /);
    expect(await focused()).toMatchObject({ tag: 'button', text: 'Next →' });
    expect(await rows.allTextContents()).not.toEqual(firstPageNames);
    for (const cell of await page.locator('.rc-availability').allTextContents()) expect(cell).toBe('Available');
    await screenshot('champs', [SMALL, LARGE]);

    // Skills cut to one line are reachable by keyboard: the button's name is the whole list,
    // focus unfolds the line, and Tab goes on to the row's Profile action, then the next champion's skills.
    const skills = page.locator('table.rc-champ-table .rc-skills-text');
    const cutIndex = await skills.evaluateAll((els) => els.findIndex((e) => e.scrollWidth > e.clientWidth));
    expect(cutIndex).toBeGreaterThanOrEqual(0);
    const cut = skills.nth(cutIndex);
    const fullText = (await cut.textContent())!;
    expect(await cut.evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
    await cut.focus();
    expect(await cut.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    expect((await focused()).text).toBe(fullText);
    expect(await page.getByRole('button', { name: fullText, exact: true }).count()).toBeGreaterThanOrEqual(1);
    await screenshot('champs-skills-focused');
    await page.keyboard.press('Enter'); // stays unfolded after focus moves on
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ tag: 'button', text: 'Profile…' });
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ tag: 'button', text: (await skills.nth(cutIndex + 1).textContent())! });
    expect(await cut.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);

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
    await expect.poll(focused).toMatchObject({ tag: 'h2', text: 'Connect the recruiter API' });
    // The header names the recruiter organization here (none now), never the delivery client as if it were one.
    expect(await page.getByTestId('header-recruiter-org').textContent()).toBe('No recruiter key connected');
    expect(await bridge.services.connection.current()).not.toBeNull();
    expect(pageErrors).toEqual([]);
  });

  it('shows what a read-only key cannot do, disabled with the missing scope named', async () => {
    await page.getByLabel('Recruiter API key').fill(orgKey('Readonly Recruiting'));
    await page.getByRole('button', { name: 'Connect recruiter key' }).click();
    await expect.poll(() => page.getByTestId('recruiter-org-name').textContent()).toBe('Readonly Recruiting');
    expect(await page.getByTestId('header-recruiter-org').textContent()).toBe('Recruiting as Readonly Recruiting');
    await page.locator('table.rc-jobs tbody tr').first().waitFor();

    // New job and Data Champs stay visible but disabled (still focusable), each naming its scope.
    const newJob = page.getByRole('button', { name: 'New job' });
    expect(await newJob.getAttribute('aria-disabled')).toBe('true');
    expect(await description(newJob)).toBe('This key lacks the jobs:write scope needed to create, edit, publish or close jobs and act on applications. Ask the operator for a key that has it.');
    const champsTab = page.getByRole('navigation', { name: 'Recruiter sections' }).getByRole('button', { name: 'Data Champs' });
    expect(await champsTab.getAttribute('aria-disabled')).toBe('true');
    expect(await description(champsTab)).toBe('This key lacks the data_champs:read scope needed to search Data Champs or see recommended matches. Ask the operator for a key that has it.');
    expect(await page.locator('.rc-scope-note').allTextContents()).toHaveLength(2);
    await page.setViewportSize(LARGE);
    await docScreenshot(page, 'recruiter-read-only');
    await page.setViewportSize(SMALL);

    // Activating them does nothing (no form to fill in vain), and focus stays put.
    await newJob.focus();
    await page.keyboard.press('Enter');
    expect(await newJob.isEnabled()).toBe(false); // aria-disabled counts as disabled for Playwright too
    await champsTab.click({ force: true });
    expect(await page.getByRole('heading', { level: 2 }).first().textContent()).toBe('Jobs');
    expect(await page.getByLabel('Title').count()).toBe(0);
    expect((await focused()).text).toBe('Data Champs');

    // On a job: every move and application action is disabled for the same reason.
    await page.locator('table.rc-jobs').getByRole('button', { name: 'Store opening hours check' }).click();
    await page.locator('table.rc-applications').waitFor();
    const blocked = page.locator('.rc-lifecycle button, .rc-row-actions button');
    expect(await blocked.count()).toBeGreaterThan(0);
    for (const scope of await blocked.evaluateAll((els) => els.map((e) => `${e.getAttribute('aria-disabled')} ${e.getAttribute('data-missing-scope')}`))) {
      expect(scope).toBe('true jobs:write');
    }
    await page.locator('.rc-row-actions button', { hasText: 'Hire' }).click({ force: true });
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await page.locator('.rc-matches').count()).toBe(0);

    // A discovery-only key opens on Data Champs; Jobs names jobs:read.
    await page.getByRole('button', { name: 'Forget recruiter key' }).click();
    await page.getByLabel('Recruiter API key').fill(orgKey('Talent Scouts'));
    await page.getByRole('button', { name: 'Connect recruiter key' }).click();
    await expect.poll(focused).toMatchObject({ tag: 'h2', text: 'Find Data Champs' });
    const jobsTab = page.getByRole('navigation', { name: 'Recruiter sections' }).getByRole('button', { name: 'Jobs' });
    expect(await jobsTab.getAttribute('aria-disabled')).toBe('true');
    expect(await description(jobsTab)).toBe('This key lacks the jobs:read scope needed to list and open jobs. Ask the operator for a key that has it.');
    await page.getByTestId('champ-total').waitFor();
    expect(pageErrors).toEqual([]);
  });
});

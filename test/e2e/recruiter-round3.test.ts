// Issue 23, point 11 in real Chromium at 800 and 1280 px, through the web bridge (real
// handlers) against the reference service's recruiter API: a Data Champ search result opens
// the champ's profile and compares them with a job through the job's recommended matches, and
// "Approve work" first shows what the service gives about the submission (no submitted content:
// the dialog says so) before anything is approved.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';

interface WireMatch { data_champ: { id: number; name: string; daily_rate: string; currency: string }; score: number; reasons: string[] }

describe.each([800, 1280])('recruiter at %i px', (width) => {
  let app: BrowserApp;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    app = await startBrowserApp({ name: `recruiter-round3-${width}`, service: { seed: 11, sets: 1, slots: 1, fileSize: 1024 }, connected: true, pickFolderAnswer: () => null, viewport: { width, height: 900 } });
    page = app.page;
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
  }, 180_000); // building the renderer and starting Chromium on a loaded machine

  afterAll(async () => {
    await app?.close();
  });

  const acmeKey = () => app.service.organizations.find((o) => o.name === 'Acme Field Research')!.apiKey;
  /** The service's own answer, over HTTP, to compare the window with. */
  const api = async <T,>(path: string): Promise<T> => {
    const res = await fetch(`${app.service.recruiterBaseUrl}${path}`, { headers: { authorization: `Bearer ${acmeKey()}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  };
  const stat = async (route: string) => (await app.service.admin.stats()).byRoute[route] ?? 0;
  const noSidewaysScroll = () => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

  it('a search result opens the profile and shows how the champ stands for a job', { timeout: 120_000 }, async () => {
    await page.goto(app.bridge.url);
    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('button', { name: 'Recruiter' }).click();
    await page.getByLabel('Recruiter API key').fill(acmeKey());
    await page.getByRole('button', { name: 'Connect recruiter key' }).click();
    await expect.poll(() => page.getByTestId('recruiter-org-name').textContent()).toBe('Acme Field Research');

    const { jobs } = await api<{ jobs: Array<{ id: number; title: string }> }>('/jobs?per_page=100');
    const street = jobs.find((j) => j.title === 'Street survey in Berlin')!;
    const { matches } = await api<{ matches: WireMatch[] }>(`/jobs/${street.id}/data-champs/matches?limit=50`);
    // A recommended champ who asks more than the job's 150.00 EUR a day, so the warning shows too.
    const dear = matches.find((m) => m.data_champ.currency === 'EUR' && Number(m.data_champ.daily_rate) > 150)!;
    expect(dear).toBeDefined();

    await page.getByRole('navigation', { name: 'Recruiter sections' }).getByRole('button', { name: 'Data Champs' }).click();
    await page.getByTestId('champ-total').waitFor();
    // The unfiltered results fit their card: no sideways scrolling inside it, every Profile… button in view.
    await page.locator('table.rc-champ-table tbody tr').first().waitFor();
    const fit = await page.evaluate(() => {
      const wrap = document.querySelector('.rc-champs .table-wrap')!;
      const right = wrap.getBoundingClientRect().right;
      const buttons = [...wrap.querySelectorAll('tbody button')].map((b) => b.getBoundingClientRect().right);
      return { scroll: wrap.scrollWidth, client: wrap.clientWidth, clipped: buttons.filter((r) => r > right + 0.5).length };
    });
    expect(fit).toEqual({ scroll: fit.client, client: fit.client, clipped: 0 });
    await page.getByLabel('Name').fill(dear.data_champ.name);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const row = page.locator(`table.rc-champ-table tr[data-champ-id="${dear.data_champ.id}"]`);
    await row.waitFor();
    const profile = await api<{ data_champ: { bio: string; languages: string[]; completed_jobs: number } }>(`/data-champs/${dear.data_champ.id}`);
    const profilesBefore = await stat('recruiter GET /data-champs/:id');
    await row.getByRole('button', { name: `Profile of ${dear.data_champ.name}` }).click();

    // The profile is the service's public profile (read again by id), with what the search leaves out.
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByRole('heading', { level: 3 }).textContent()).toBe(dear.data_champ.name);
    await expect.poll(() => dialog.getByTestId('champ-profile').getAttribute('aria-busy')).toBe('false');
    expect(await stat('recruiter GET /data-champs/:id')).toBeGreaterThan(profilesBefore);
    const text = (await dialog.textContent())!;
    expect(text).toContain(profile.data_champ.bio);
    expect(text).toContain(`Completed jobs${profile.data_champ.completed_jobs}`);
    expect(text).toContain(`Languages${profile.data_champ.languages.join(', ')}`);
    expect(text).toContain('The service has no way to invite a Data Champ');

    // Compared with a job: the score and reasons are the service's for this champ and job.
    await dialog.getByLabel('Job').selectOption({ label: 'Street survey in Berlin (active)' });
    const standing = dialog.getByTestId('champ-standing');
    await expect.poll(() => standing.textContent()).toContain(`Score ${Math.round(dear.score)} of 100 for “Street survey in Berlin”`);
    for (const reason of dear.reasons) expect(await standing.textContent()).toContain(reason);
    expect(await dialog.getByTestId('champ-rate-warning').textContent()).toBe(`Their daily rate (${dear.data_champ.daily_rate} EUR) is above this job's (150.00 EUR).`);
    expect(await noSidewaysScroll()).toBe(true);
    await page.screenshot({ path: `test-artifacts/screens/recruiter-champ-profile-${width}.png` });

    // Another job, for which the service does not recommend them: said in words, with the count.
    const { matches: videoMatches } = await api<{ matches: WireMatch[] }>(`/jobs/${jobs.find((j) => j.title === 'Kitchen video recordings')!.id}/data-champs/matches?limit=50`);
    expect(videoMatches.some((m) => m.data_champ.id === dear.data_champ.id)).toBe(false);
    await dialog.getByLabel('Job').selectOption({ label: 'Kitchen video recordings (paused)' });
    await expect.poll(() => standing.textContent()).toBe(`${dear.data_champ.name} is not among the ${videoMatches.length} Data Champs the service recommends for “Kitchen video recordings”.`);
    await dialog.getByLabel('Job').selectOption({ label: 'Street survey in Berlin (active)' });
    await expect.poll(() => standing.textContent()).toContain('Score ');

    // The job's page with its matches is one step away.
    await dialog.getByRole('button', { name: 'Open this job and its matches' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => page.locator('#rc-job-title').textContent()).toContain('Street survey in Berlin');
    await page.locator('.rc-match').first().waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('"Approve work" shows what the service gives and says it provides no submission before approving', { timeout: 120_000 }, async () => {
    const row = page.locator('table.rc-applications tr[data-status="work_submitted"]').first();
    await row.waitFor();
    const applicationId = await row.getAttribute('data-application-id');
    const { jobs } = await api<{ jobs: Array<{ id: number; title: string }> }>('/jobs?per_page=100');
    const street = jobs.find((j) => j.title === 'Street survey in Berlin')!;
    const { application } = await api<{ application: { cover_letter: string; data_champ: { name: string } } }>(`/jobs/${street.id}/applications/${applicationId}`);
    const approvalsBefore = await stat('recruiter POST /jobs/:id/applications/:id/approve-work');

    await row.getByRole('button', { name: /^Approve work / }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByRole('heading').textContent()).toBe(`Approve the work of ${application.data_champ.name}?`);
    expect(await dialog.getByTestId('approve-no-submission').textContent()).toContain('The recruiter service provides no submitted work to review');
    await expect.poll(() => dialog.getByTestId('approve-facts').getAttribute('aria-busy')).toBe('false');
    const facts = (await dialog.getByTestId('approve-facts').textContent())!;
    expect(facts).toContain('JobStreet survey in Berlin');
    expect(facts).toContain('StatusWork submitted');
    expect(facts).toContain(application.cover_letter);
    expect(await noSidewaysScroll()).toBe(true);
    await page.screenshot({ path: `test-artifacts/screens/recruiter-approve-work-${width}.png` });

    // Cancel approves nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await stat('recruiter POST /jobs/:id/applications/:id/approve-work')).toBe(approvalsBefore);
    expect(await row.getAttribute('data-status')).toBe('work_submitted');

    await row.getByRole('button', { name: /^Approve work / }).click();
    await dialog.getByRole('button', { name: 'Approve work' }).click();
    const approved = page.locator(`tr[data-application-id="${applicationId}"]`);
    await expect.poll(() => approved.getAttribute('data-status')).toBe('work_approved');
    expect(await stat('recruiter POST /jobs/:id/applications/:id/approve-work')).toBe(approvalsBefore + 1);
    expect(pageErrors).toEqual([]);
  });
  it('the rest of point 11 in the browser: skill suggestions as you type, and the hire dialog\'s rate warning', { timeout: 120_000 }, async () => {
    // Hiring a Data Champ who asks more per day than the job pays says so, in both amounts.
    const { jobs } = await api<{ jobs: Array<{ id: number; title: string; rate: string; rate_type: string; currency: string; status: string }> }>('/jobs?per_page=100');
    type WireApp = { id: number; status: string; data_champ: { name: string; daily_rate: string; currency: string } };
    let found: { job: (typeof jobs)[number]; app: WireApp } | undefined;
    for (const job of jobs.filter((j) => j.rate_type === 'daily' && j.status !== 'closed')) {
      const { applications } = await api<{ applications: WireApp[] }>(`/jobs/${job.id}/applications`);
      const app = applications.find((a) => ['pending', 'shortlisted'].includes(a.status) && a.data_champ.currency === job.currency && Number(a.data_champ.daily_rate) > Number(job.rate));
      if (app) {
        found = { job, app };
        break;
      }
    }
    expect(found).toBeDefined();
    const { job, app: dearApplicant } = found!;
    await page.getByRole('button', { name: '← Jobs' }).click();
    await page.locator('table.rc-jobs').getByRole('button', { name: job.title }).click();
    const row = page.locator(`table.rc-applications tr[data-application-id="${dearApplicant.id}"]`);
    await row.getByRole('button', { name: /^Hire / }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain(`Their daily rate (${dearApplicant.data_champ.daily_rate} ${job.currency}) is above this job's (${job.rate} ${job.currency}).`);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });

    // Required skills offer the identifiers the service uses, completing the last one typed.
    await page.getByRole('button', { name: '← Jobs' }).click();
    await page.getByRole('button', { name: 'New job' }).click();
    await page.getByLabel('Required skills').fill('survey, vid');
    const options = page.locator('#rc-known-skills option');
    await expect.poll(async () => (await options.evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).includes('survey, video_recording')).toBe(true);
    expect(await page.getByLabel('Required skills').getAttribute('list')).toBe('rc-known-skills');
    expect(await noSidewaysScroll()).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});

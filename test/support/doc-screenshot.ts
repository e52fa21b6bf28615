// Screenshots shown in README.md (docs/screenshots/) are taken by the e2e tests at the moment
// they show something worth seeing. A plain `npm test` writes them under test-artifacts/ so it
// never dirties the working tree; `npm run screenshots` (DATASET_SYNC_UPDATE_SCREENSHOTS=1)
// writes them over the committed ones, to be looked at before they are committed.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

export const UPDATE_DOC_SCREENSHOTS = process.env.DATASET_SYNC_UPDATE_SCREENSHOTS === '1';

/** Saves the page as docs/screenshots/<name>.png (or its test-artifacts copy, see above). */
export async function docScreenshot(page: Page, name: string): Promise<void> {
  const dir = UPDATE_DOC_SCREENSHOTS ? join(process.cwd(), 'docs', 'screenshots') : join(process.cwd(), 'test-artifacts', 'docs-screenshots');
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`) });
}

// The browser finder every browser test uses: CHROMIUM_PATH first, then a system Chromium,
// then the Chromium inside the npm package @sparticuz/chromium. The last branch is what a
// machine with only Node and npm gets; it is forced here (system lookup skipped) and driven
// for real, since this machine has a system Chromium and the other branches would hide it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { findChromium, launchChromium } from '../support/chromium';

let server: Server;
let pageUrl: string;

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<title>waiting</title><script>document.title = String(6 * 7)</script>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  pageUrl = `http://127.0.0.1:${address.port}/`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const savedChromiumPath = process.env.CHROMIUM_PATH;
afterEach(() => {
  if (savedChromiumPath === undefined) delete process.env.CHROMIUM_PATH;
  else process.env.CHROMIUM_PATH = savedChromiumPath;
});

describe('findChromium', () => {
  it('falls back to the Chromium shipped in @sparticuz/chromium, which loads a page and runs its script', async () => {
    const found = await findChromium({ system: false });
    expect(found.source).toBe('npm-package');
    const browser = await launchChromium({ system: false });
    try {
      const page = await browser.newPage();
      await page.goto(pageUrl);
      expect(await page.title()).toBe('42');
      // Its bundled font is found (our fonts.conf), so text renders even where the system has no fonts:
      // "Open Sans" measures differently from the fallback an unknown family gets.
      const widths = await page.evaluate(() => {
        const context = document.createElement('canvas').getContext('2d')!;
        const width = (family: string) => ((context.font = `32px ${family}`), context.measureText('Dataset Sync 0123').width);
        return { openSans: width('"Open Sans"'), fallback: width('"no-such-font-family"') };
      });
      expect(widths.openSans).toBeGreaterThan(0);
      expect(widths.openSans).not.toBe(widths.fallback);
    } finally {
      await browser.close();
    }
  });

  it('takes CHROMIUM_PATH first and names it when it is not an executable', async () => {
    process.env.CHROMIUM_PATH = '/nonexistent/chromium';
    await expect(findChromium()).rejects.toThrow('CHROMIUM_PATH=/nonexistent/chromium is not an executable file.');
    const npmShipped = await findChromium({ system: false });
    process.env.CHROMIUM_PATH = npmShipped.executablePath;
    expect(await findChromium()).toMatchObject({ source: 'CHROMIUM_PATH', executablePath: npmShipped.executablePath });
  });
});

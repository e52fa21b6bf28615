// `npm run icons`: renders resources/icon.svg to the PNG set the app and packaging use,
// resources/icons/<size>x<size>.png from 16 to 1024 (the window's icon on Linux, the Linux
// packages' icon set; electron-builder makes the macOS .icns and Windows .ico from the 1024
// one). Run it after editing the SVG and commit the PNGs: building never needs a browser.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './find-chromium';

const ICON_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024] as const;
const RESOURCES = fileURLToPath(new URL('../resources/', import.meta.url));

async function main(): Promise<void> {
  const svg = await readFile(join(RESOURCES, 'icon.svg'), 'utf8');
  await mkdir(join(RESOURCES, 'icons'), { recursive: true });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    for (const size of ICON_SIZES) {
      await page.setViewportSize({ width: size, height: size });
      // The SVG scaled to the viewport; a transparent page so the rounded corners stay clear.
      await page.setContent(`<style>html,body{margin:0;background:transparent}svg{display:block;width:${size}px;height:${size}px}</style>${svg}`);
      const png = await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
      await writeFile(join(RESOURCES, 'icons', `${size}x${size}.png`), png);
    }
  } finally {
    await browser.close();
  }
  process.stdout.write(`Wrote ${ICON_SIZES.length} icons to resources/icons/\n`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});

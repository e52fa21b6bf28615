// Packaging without the Electron binary: the icon set is complete and the electron-builder
// configuration in package.json points at files that exist (electron-builder's own schema check
// runs in `npm run dist`, which needs the Electron download; see README "Packaging").
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = process.cwd();
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  build: { linux: { icon: string; target: string[] }; mac: { icon: string; target: string[] }; win: { icon: string; target: string[] }; extraResources: Array<{ from: string; to: string }> };
};

/** Width, height and colour type from a PNG's IHDR chunk. */
function pngSize(path: string): { width: number; height: number; rgba: boolean } {
  const data = readFileSync(path);
  expect(data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), `${path} is a PNG`).toBe(true);
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20), rgba: data[25] === 6 };
}

describe('packaging', () => {
  it('ships a square RGBA icon for every size from 16 to 1024 px', () => {
    const dir = join(root, manifest.build.linux.icon);
    const sizes = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
    expect(readdirSync(dir).sort()).toEqual(sizes.map((s) => `${s}x${s}.png`).sort());
    for (const size of sizes) expect(pngSize(join(dir, `${size}x${size}.png`))).toEqual({ width: size, height: size, rgba: true });
  });

  it('builds AppImage and deb, dmg and nsis from icons that exist; the window icon is packaged', () => {
    const { linux, mac, win, extraResources } = manifest.build;
    expect([linux.target, mac.target, win.target]).toEqual([['AppImage', 'deb'], ['dmg'], ['nsis']]);
    // electron-builder makes .icns and .ico from a PNG of at least 512 (mac) / 256 (win) px.
    for (const icon of [mac.icon, win.icon]) expect(pngSize(join(root, icon)).width).toBe(1024);
    expect(extraResources).toContainEqual({ from: 'resources/icons/512x512.png', to: 'icon.png' });
    for (const { from } of extraResources) expect(existsSync(join(root, from)), from).toBe(true);
    expect(readFileSync(join(root, 'src-main', 'index.ts'), 'utf8')).toMatch(/join\(process\.resourcesPath, 'icon\.png'\)/);
  });
});

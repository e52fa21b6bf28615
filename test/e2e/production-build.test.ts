// The shipped app holds only the product: `electron-vite build` (production) leaves the
// reference service (demo data, admin interface, fault switches) out of every output file,
// while a demo build (`--mode demo`, what `npm run demo` runs) carries it for --demo. The demo
// build is the control: it proves the marker strings below really identify that code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ELECTRON_VITE = join(process.cwd(), 'node_modules', 'electron-vite', 'bin', 'electron-vite.js');

/** Strings only src-service holds: its demo-data cache folder and a fault switch. */
const SERVICE_MARKERS = ['dataset-sync-demo-data', 'ignore_range'];

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'dataset-sync-build-'));
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

async function build(mode: 'production' | 'demo'): Promise<Map<string, string>> {
  const outDir = join(root, mode);
  await run(process.execPath, [ELECTRON_VITE, 'build', '--mode', mode, '--outDir', outDir, '--logLevel', 'warn'], { cwd: process.cwd(), timeout: 180_000 });
  const files = new Map<string, string>();
  for (const entry of await readdir(outDir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && /\.(m?js|cjs|html)$/.test(entry.name)) {
      const path = join(entry.parentPath, entry.name);
      files.set(path.slice(outDir.length + 1), await readFile(path, 'utf8'));
    }
  }
  return files;
}

function filesContaining(files: Map<string, string>, marker: string): string[] {
  return [...files].filter(([, text]) => text.includes(marker)).map(([name]) => name);
}

describe('production build', () => {
  it('contains no reference-service code; the demo build does', { timeout: 240_000 }, async () => {
    const demo = await build('demo');
    for (const marker of SERVICE_MARKERS) expect(filesContaining(demo, marker), marker).not.toEqual([]);

    const production = await build('production');
    expect([...production.keys()]).toContain('main/index.js');
    for (const marker of SERVICE_MARKERS) expect(filesContaining(production, marker), marker).toEqual([]);
    expect(production.get('main/index.js')).toContain('This build has no demo service');
  });
});

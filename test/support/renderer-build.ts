// The renderer for browser tests, built once per change of its sources rather than once per test
// file: a Vite build takes 10-30 s of CPU, and each of some twenty e2e files built it in its
// beforeAll, which under a loaded CI ran past the hook's minute. The build is keyed by a hash of
// everything it compiles (src-renderer, src-shared, the Vite version) and kept in
// node_modules/.cache; concurrent first builds each write their own folder and the first rename
// wins (the others are dropped), so no lock is needed.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRenderer } from '../../scripts/web-bridge/build-renderer';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CACHE = join(REPO, 'node_modules/.cache/dataset-sync-test-renderer');
const SOURCES = ['src-renderer', 'src-shared', 'scripts/web-bridge/build-renderer.ts', 'node_modules/vite/package.json'];

async function sourcesHash(): Promise<string> {
  const hash = createHash('sha256');
  for (const top of SOURCES) {
    const full = join(REPO, top);
    const files = top.includes('.') ? [full] : (await readdir(full, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
    for (const file of files.sort()) hash.update(file.slice(REPO.length)).update('\0').update(await readFile(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** The built renderer's folder (index.html and assets); built now if its sources changed since the last build. */
export async function testRenderer(): Promise<string> {
  const dir = join(CACHE, await sourcesHash());
  if (existsSync(join(dir, 'index.html'))) return dir;
  const building = join(CACHE, `building-${randomUUID()}`);
  await buildRenderer(building);
  try {
    await rename(building, dir);
  } catch {
    await rm(building, { recursive: true, force: true }); // another file's build won
  }
  return dir;
}

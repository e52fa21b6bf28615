// The shipped app holds only the product: `electron-vite build` (production) leaves the
// reference service (demo data, admin interface, fault switches) out of every output file,
// while a demo build (`--mode demo`, what `npm run demo` runs) carries it for --demo. The demo
// build is the control: it proves the marker strings below really identify that code. The
// built engine thread (out/main/engine-worker.js, a second main entry) runs a real sync.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { startReferenceService } from '../../src-service/index';
import type { FromWorker, ToWorker } from '../../src-main/app/engine-thread/messages';
import type { SyncSummary } from '../../src-shared/sync-events';

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

let production: Promise<Map<string, string>> | undefined;

describe('production build', () => {
  it('contains no reference-service code; the demo build does', { timeout: 240_000 }, async () => {
    const demo = await build('demo');
    for (const marker of SERVICE_MARKERS) expect(filesContaining(demo, marker), marker).not.toEqual([]);

    production = build('production');
    const files = await production;
    expect([...files.keys()]).toContain('main/index.js');
    expect([...files.keys()]).toContain('main/engine-worker.js');
    for (const marker of SERVICE_MARKERS) expect(filesContaining(files, marker), marker).toEqual([]);
    expect(files.get('main/index.js')).toContain('This build has no demo service');
    // The main bundle starts the thread beside itself.
    expect(files.get('main/index.js')).toContain('new URL("./engine-worker.js"');
  });

  it('runs a sync in the built engine thread', { timeout: 240_000 }, async () => {
    await (production ??= build('production'));
    // The output's imports resolve as in the app: its packages from node_modules, its files as ES modules.
    await symlink(join(process.cwd(), 'node_modules'), join(root, 'node_modules'));
    await writeFile(join(root, 'package.json'), '{"type":"module"}');
    const service = await startReferenceService({ sets: 3, fileSize: 4096, slots: 2, dataDir: join(root, 'media'), seed: 5, quiet: true });
    const worker = new Worker(join(root, 'production', 'main', 'engine-worker.js'));
    try {
      let events = 0;
      const summary = await new Promise<SyncSummary>((resolve, reject) => {
        worker.on('message', (m: FromWorker) => {
          if (m.type === 'events') events += m.events.length;
          if (m.type === 'done') resolve(m.summary);
          if (m.type === 'crash') reject(new Error(m.message));
        });
        worker.on('error', reject);
        const options = { baseUrl: service.deliveryBaseUrl, apiKey: service.clients[0]!.apiKey, collectionId: service.clients[0]!.collections[0]!, dest: join(root, 'dataset') };
        worker.postMessage({ type: 'start', kind: 'sync', options, paused: false, watchSpace: true, recordNotes: true, systemProxy: false } satisfies ToWorker);
      });
      expect(summary).toMatchObject({ exitCode: 0, filesDownloaded: 6 });
      expect(events).toBeGreaterThan(6);
    } finally {
      await worker.terminate();
      await service.close();
    }
  });
});

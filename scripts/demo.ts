// `npm run demo`: the main job on the embedded reference service.
// With a working Electron binary it opens the desktop app connected to a demo service;
// where Electron cannot run (no binary, no display) it runs the same sync headless through
// the CLI, so the quick start shows the product working on any machine.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceService } from '../src-service/index';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const headless = process.argv.includes('--headless') || process.env.DATASET_SYNC_DEMO_HEADLESS === '1';

function electronBinary(): string | null {
  // install.js is idempotent: it downloads the binary once where the network allows.
  spawnSync(process.execPath, [path.join(root, 'node_modules/electron/install.js')], { stdio: 'ignore', timeout: 120_000 });
  try {
    const binary = createRequire(import.meta.url)('electron') as unknown as string;
    return typeof binary === 'string' && existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', env, cwd: root });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 130 : 1)));
  });
}

async function desktop(binary: string): Promise<number> {
  const built = await run(process.execPath, [path.join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--mode', 'demo']);
  if (built !== 0) return built;
  return run(binary, [root, '--demo']);
}

async function headlessSync(): Promise<number> {
  const service = await startReferenceService({ quiet: true });
  const client = service.clients[0];
  const collection = client?.collections[0];
  if (!client || collection === undefined) throw new Error('the demo data has no client collection');
  const dest = path.join(root, 'demo-output', `collection-${collection}`);
  process.stderr.write(
    `Reference service on ${service.deliveryBaseUrl}\n` +
      `Syncing collection ${collection} of "${client.name}" into ${dest}\n` +
      `(consent records go to ${dest}.consents)\n\n`,
  );
  try {
    const code = await run(
      process.execPath,
      [path.join(root, 'bin/dataset-sync.mjs'), 'sync', '--base-url', service.deliveryBaseUrl, '--collection', String(collection), '--dest', dest],
      { ...process.env, DATASET_SYNC_API_KEY: client.apiKey },
    );
    if (code === 0) {
      process.stderr.write(`\nDone. Check it yourself: (cd ${dest} && sha256sum -c --quiet SHA256SUMS) && echo all verified\n`);
      process.stderr.write('Run it again to see an incremental no-op sync; `npx dataset-sync demo` keeps a service running for your own experiments.\n');
    }
    return code;
  } finally {
    await service.close();
  }
}

const binary = headless ? null : electronBinary();
if (!headless && binary === null) {
  process.stderr.write('The Electron binary is not available on this machine (it is downloaded on first run where the network allows): running the demo headless.\n\n');
}
process.exitCode = binary ? await desktop(binary) : await headlessSync();

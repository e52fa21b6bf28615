// `npm run demo`: the main job on the embedded reference service.
// With a working Electron binary it opens the desktop app connected to a demo service;
// where Electron cannot run (no binary, no display) it runs the same sync headless through
// the CLI, so the quick start shows the product working on any machine.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { headlessDemo } from './demo-headless';

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

/** The headless demo; DATASET_SYNC_DEMO_PORT and DATASET_SYNC_DEMO_OUTPUT move it (tests). */
function headlessSync(): Promise<number> {
  const port = process.env.DATASET_SYNC_DEMO_PORT;
  return headlessDemo({
    root,
    port: port ? Number(port) : undefined,
    outputDir: process.env.DATASET_SYNC_DEMO_OUTPUT || undefined,
  });
}

const binary = headless ? null : electronBinary();
if (!headless && binary === null) {
  process.stderr.write('The Electron binary is not available on this machine (it is downloaded on first run where the network allows): running the demo headless.\n\n');
}
process.exitCode = binary ? await desktop(binary) : await headlessSync();

// `npm run demo` (headless) run twice, as the quick start tells a newcomer to (issue 23,
// point 1): the second run finds the service at the same address, so the folder it synced is
// its own and the run is an "Up to date" no-op (exit 0). When the demo's port is taken, a run
// still succeeds, in a folder of its own, and says why. A real `tsx scripts/demo.ts --headless`.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../engine/helpers';

const run = promisify(execFile);
let work: string;

beforeAll(async () => {
  work = await tempDir('dsync-demo-rerun-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

/** A port nothing listens on now (the kernel's pick, released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function demo(port: number, output: string): Promise<{ code: number; stderr: string }> {
  const env = { ...process.env, DATASET_SYNC_DEMO_PORT: String(port), DATASET_SYNC_DEMO_OUTPUT: output, DATASET_SYNC_API_KEY: undefined };
  try {
    const { stderr } = await run(process.execPath, ['--import', 'tsx', path.resolve('scripts/demo.ts'), '--headless'], { env, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stderr };
  } catch (e) {
    const err = e as { code?: number; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, stderr: err.stderr ?? String(e) };
  }
}

describe('npm run demo, run again', () => {
  it('the second run syncs the same folder from the same address and says it is up to date', { timeout: 480_000 }, async () => {
    const port = await freePort();
    const output = path.join(work, 'out');
    const first = await demo(port, output);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`http://127.0.0.1:${port}/`);
    expect(first.stderr).toContain('Sync complete: every file verified, but 4 sets have a participant without a signed consent');
    expect(first.stderr).toContain('Run it again to see an incremental no-op sync');

    const again = await demo(port, output);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Up to date: nothing new since the last sync, nothing downloaded.');
    expect(again.stderr).not.toMatch(/holds collection|choose another folder/);
    expect(await fs.readdir(output)).toEqual(expect.arrayContaining([expect.stringMatching(/^collection-\d+$/)]));
    expect((await fs.readdir(output)).filter((f) => !f.endsWith('.consents'))).toHaveLength(1);
  });

  it('with its port taken, a run still succeeds in a folder of its own and says why', { timeout: 240_000 }, async () => {
    const port = await freePort();
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const output = path.join(work, 'busy');
      const r = await demo(port, output);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`Port ${port} is in use`);
      const folders = (await fs.readdir(output)).filter((f) => !f.endsWith('.consents'));
      expect(folders).toEqual([expect.stringMatching(/^collection-\d+-port-\d+$/)]);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

// bin/dataset-sync.mjs starts the CLI from a bundle of src-main (out/cli/main.mjs) and rebuilds
// that bundle whenever a source is newer, so what runs is always the current source.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from '../engine/helpers';

const bundle = path.resolve(path.dirname(CLI), '../out/cli/main.mjs');

describe('bin/dataset-sync.mjs', () => {
  it('rebuilds a bundle older than the sources, then runs from it', async () => {
    await runCli(['--help']);
    const long = new Date('2001-01-01T00:00:00Z');
    await fs.utimes(bundle, long, long);
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: dataset-sync');
    const st = await fs.stat(bundle);
    expect(st.mtimeMs).toBeGreaterThan(Date.now() - 60_000);
    // No temporary bundle is left beside it.
    expect((await fs.readdir(path.dirname(bundle))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('rebuilds when only a file under src-shared is newer (the API schemas are bundled too)', async () => {
    await runCli(['--help']);
    const shared = path.resolve(path.dirname(CLI), '../src-shared/sync-events.ts');
    const before = new Date(Date.now() - 60_000);
    await fs.utimes(bundle, before, before);
    const now = new Date();
    await fs.utimes(shared, now, now);
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect((await fs.stat(bundle)).mtimeMs).toBeGreaterThan(before.getTime() + 1000);
  });

  it('runs the CLI from the bundle: the same usage error and exit code as the sources', async () => {
    const r = await runCli(['no-such-command']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "no-such-command"');
  });
});

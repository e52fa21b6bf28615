// Seeded data is reproducible, the media cache is reused, options shape the main collection,
// and the demo command prints its JSON line and stops cleanly.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemoCommand } from '../../src-service/cli-demo';
import { AdminClient } from '../../src-service/admin-client';
import { SMALL_FILE, getBytes, getJson, sha256, startTestService, walkSets, type ApiCollectionDetail, type ApiSet } from './support';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ds-service-determinism-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function snapshot(opts: { seed?: number; dataDir: string; sets?: number; fileSize?: number; slots?: number }): Promise<{ keys: string[]; collections: number[]; sets: ApiSet[] }> {
  const svc = await startTestService(opts);
  try {
    return { keys: svc.clients.map((c) => c.apiKey), collections: svc.clients.flatMap((c) => c.collections), sets: await walkSets(svc.deliveryBaseUrl, svc.mainKey, svc.mainCollection) };
  } finally {
    await svc.stop();
  }
}

describe('determinism and cache', () => {
  it('same seed gives the same keys, ids, timestamps and hashes, even from a fresh data dir', async () => {
    const a = await snapshot({ seed: 7, dataDir: path.join(dir, 'a') });
    const b = await snapshot({ seed: 7, dataDir: path.join(dir, 'b') });
    expect(b.keys).toEqual(a.keys);
    expect(b.collections).toEqual(a.collections);
    // URLs carry the port, which differs between starts; everything else must be equal.
    const strip = (sets: ApiSet[]) => JSON.parse(JSON.stringify(sets).replace(/http:\/\/127\.0\.0\.1:\d+/g, '')) as unknown;
    expect(strip(b.sets)).toEqual(strip(a.sets));
    const c = await snapshot({ seed: 8, dataDir: path.join(dir, 'a') });
    expect(c.keys).not.toEqual(a.keys);
    expect(c.sets.map((s) => s.files[0]?.sha256)).not.toEqual(a.sets.map((s) => s.files[0]?.sha256));
  });

  it('reuses cached bodies on a second start (no rewrite) and regenerates a damaged one', async () => {
    // The cache holds synthetic bodies (a size asked for); real videos need none.
    const dataDir = path.join(dir, 'reuse');
    const first = await snapshot({ seed: 11, dataDir, fileSize: SMALL_FILE });
    const cacheDir = (await fs.readdir(dataDir)).find((n) => n.includes('seed11'));
    if (!cacheDir) throw new Error('no cache folder for seed 11');
    const bodies = (await fs.readdir(path.join(dataDir, cacheDir))).filter((n) => n.endsWith('.bin'));
    expect(bodies.length).toBeGreaterThan(0);
    const mtimes = async () => Promise.all(bodies.map(async (n) => (await fs.stat(path.join(dataDir, cacheDir, n))).mtimeMs));
    const before = await mtimes();
    await new Promise((r) => setTimeout(r, 20));
    const second = await snapshot({ seed: 11, dataDir, fileSize: SMALL_FILE });
    expect(await mtimes()).toEqual(before);
    expect(second.sets.map((s) => s.files.map((f) => f.sha256))).toEqual(first.sets.map((s) => s.files.map((f) => f.sha256)));

    // A body cut short is noticed by its size and written again.
    const damaged = path.join(dataDir, cacheDir, bodies[0] as string);
    await fs.truncate(damaged, 10);
    const svc = await startTestService({ seed: 11, dataDir, fileSize: SMALL_FILE });
    try {
      expect((await fs.stat(damaged)).size).toBeGreaterThan(10);
      for (const set of await walkSets(svc.deliveryBaseUrl, svc.mainKey, svc.mainCollection)) {
        for (const f of set.files) expect(sha256((await getBytes(f.url, svc.mainKey)).body)).toBe(f.sha256);
      }
    } finally {
      await svc.stop();
    }
    // Runtime bodies (admin edits) are removed on close; the cache stays.
    expect((await fs.readdir(dataDir)).filter((n) => n.startsWith('runtime-'))).toEqual([]);
  });

  it('sets, fileSize and slots shape the main collection; other collections stay small', async () => {
    const svc = await startTestService({ sets: 7, fileSize: 1000, slots: 3, dataDir: path.join(dir, 'shape') });
    try {
      const sets = await walkSets(svc.deliveryBaseUrl, svc.mainKey, svc.mainCollection);
      expect(sets).toHaveLength(7);
      for (const s of sets) expect(s.files.map((f) => [f.slot_index, f.size_bytes])).toEqual([[1, 1000], [2, 1000], [3, 1000]]);
      const detail = await getJson<{ collection: ApiCollectionDetail }>(`${svc.deliveryBaseUrl}/collections/${svc.mainCollection}`, svc.mainKey);
      expect(detail.body.collection.spec.slots).toHaveLength(3);
      const second = svc.clients[0]?.collections[1] as number;
      const small = await walkSets(svc.deliveryBaseUrl, svc.mainKey, second);
      expect(small.length).toBeLessThanOrEqual(5);
      for (const s of small) for (const f of s.files) expect(f.size_bytes).toBeLessThanOrEqual(64 * 1024);
    } finally {
      await svc.stop();
    }
  });
});

describe('demo command', () => {
  it('prints one JSON line with base URLs, clients and organizations, then help on stderr; stops when asked', async () => {
    const out: string[] = [];
    const err: string[] = [];
    let stop: () => void = () => undefined;
    let ready: (line: string) => void = () => undefined;
    const firstLine = new Promise<string>((r) => (ready = r));
    const finished = runDemoCommand(['--port', '0', '--sets', '5', '--file-size', '2048', '--seed', '3', '--data-dir', path.join(dir, 'demo')], {
      stdout: (line) => {
        out.push(line);
        ready(line);
      },
      stderr: (line) => err.push(line),
      untilStopped: () => new Promise<void>((r) => (stop = r)),
    });
    const info = JSON.parse(await firstLine) as {
      deliveryBaseUrl: string;
      recruiterBaseUrl: string;
      adminBaseUrl: string;
      adminToken: string;
      clients: Array<{ name: string; apiKey: string; collections: number[] }>;
      organizations: Array<{ name: string; apiKey: string; scopes: string[] }>;
    };
    expect(Object.keys(info)).toEqual(['deliveryBaseUrl', 'recruiterBaseUrl', 'adminBaseUrl', 'adminToken', 'clients', 'organizations']);
    expect(info.adminToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await new AdminClient(info.adminBaseUrl, info.adminToken).state()).collections.length).toBeGreaterThan(0);
    await expect(new AdminClient(info.adminBaseUrl, 'not-the-token').state()).rejects.toThrow(/401/);
    expect(err.join('\n')).not.toContain(info.adminToken);
    expect(info.deliveryBaseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/partner$/);
    expect(info.recruiterBaseUrl).toMatch(/\/api\/v1\/recruiter$/);
    expect(info.adminBaseUrl).toMatch(/\/admin$/);
    const main = info.clients[0];
    if (!main) throw new Error('no client in the demo line');
    const sets = await walkSets(info.deliveryBaseUrl, main.apiKey, main.collections[0] as number);
    expect(sets).toHaveLength(5);
    expect(sets[0]?.files[0]?.size_bytes).toBe(2048);
    expect(Array.isArray(info.organizations)).toBe(true);
    expect(err.join('\n')).toMatch(/curl/);
    expect(err.join('\n')).toMatch(/dataset-sync sync/);
    expect(err.join('\n')).not.toContain(main.apiKey);
    expect(out).toHaveLength(1);
    stop();
    expect(await finished).toBe(0);
  });

  it('returns 2 with a message on stderr for usage errors', async () => {
    for (const argv of [['--sets', 'many'], ['--port', '70000'], ['--bogus'], ['positional']]) {
      const err: string[] = [];
      const code = await runDemoCommand(argv, { stdout: () => undefined, stderr: (l) => err.push(l), untilStopped: () => Promise.resolve() });
      expect(code, argv.join(' ')).toBe(2);
      expect(err.join('\n')).toMatch(/usage: dataset-sync demo/);
    }
  });

  it('runs as a process (cli-demo-main.ts) and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('src-service/cli-demo-main.ts'), '--port', '0', '--sets', '2', '--file-size', '1024', '--data-dir', path.join(dir, 'proc')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      child.stdout.on('data', (c: Buffer) => {
        buffered += c.toString();
        const nl = buffered.indexOf('\n');
        if (nl >= 0) resolve(buffered.slice(0, nl));
      });
      child.on('exit', (code) => reject(new Error(`demo exited early with ${code}`)));
    });
    const info = JSON.parse(line) as { deliveryBaseUrl: string; clients: Array<{ apiKey: string }> };
    expect((await getJson(`${info.deliveryBaseUrl}/me`, info.clients[0]?.apiKey ?? '')).status).toBe(200);
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

// The quick-start promise of the demo command, checked the way a user would: start
// `npx dataset-sync demo --sets 50` as a process, page through the sets with curl, download a
// file with curl and check it with sha256sum. No code of ours is on the client side here.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);

interface DemoLine {
  deliveryBaseUrl: string;
  recruiterBaseUrl: string;
  adminBaseUrl: string;
  clients: Array<{ name: string; apiKey: string; collections: number[] }>;
  organizations: Array<{ name: string; apiKey: string; scopes: string[] }>;
}

let dir: string;
let demo: ChildProcess;
let line: DemoLine;

async function curlJson(url: string, key: string): Promise<Record<string, unknown>> {
  const { stdout } = await run('curl', ['-sS', '--fail', '-H', `Authorization: Bearer ${key}`, '-H', 'Accept: application/json', url]);
  return JSON.parse(stdout) as Record<string, unknown>;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'dataset-sync-demo-curl-'));
  demo = spawn(
    process.execPath,
    [path.resolve('bin/dataset-sync.mjs'), 'demo', '--sets', '50', '--port', '0', '--file-size', '65536', '--data-dir', path.join(dir, 'data')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const first = await new Promise<string>((resolve, reject) => {
    demo.once('exit', (code) => reject(new Error(`demo exited early with ${code}`)));
    createInterface({ input: demo.stdout! }).once('line', resolve);
  });
  line = JSON.parse(first) as DemoLine;
});

afterAll(async () => {
  if (demo && demo.exitCode === null) {
    const exited = new Promise((resolve) => demo.once('exit', resolve));
    demo.kill('SIGINT');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

describe('npx dataset-sync demo --sets 50', () => {
  it('prints one JSON line with base URLs and demo keys', () => {
    expect(line.deliveryBaseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/partner$/);
    expect(line.recruiterBaseUrl).toMatch(/\/api\/v1\/recruiter$/);
    expect(line.adminBaseUrl).toMatch(/\/admin$/);
    expect(line.clients.length).toBeGreaterThanOrEqual(2);
    expect(line.organizations.length).toBeGreaterThanOrEqual(1);
  });

  it('serves 50 accepted sets that curl pages through and downloads with a matching sha256sum', async () => {
    const client = line.clients[0]!;
    const collection = client.collections[0]!;
    const seen = new Set<number>();
    let files: Array<{ url: string; sha256: string; filename: string }> = [];
    for (let page = 1; ; page++) {
      const body = await curlJson(`${line.deliveryBaseUrl}/collections/${collection}/sets?per_page=20&page=${page}`, client.apiKey);
      const sets = body.sets as Array<{ id: number; files: Array<{ url: string; sha256: string; filename: string }> }>;
      for (const set of sets) seen.add(set.id);
      files = files.concat(sets.flatMap((s) => s.files));
      expect(body.total).toBe(50);
      if (!body.has_more) break;
      expect(page).toBeLessThan(3);
    }
    expect(seen.size).toBe(50);

    const file = files[files.length - 1]!;
    const target = path.join(dir, file.filename);
    await run('curl', ['-sS', '--fail', '-H', `Authorization: Bearer ${client.apiKey}`, '-o', target, file.url]);
    const { stdout } = await run('sha256sum', [target]);
    expect(stdout.split(/\s+/)[0]).toBe(file.sha256);
  });
});

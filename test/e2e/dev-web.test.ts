// `npm run dev:web` as a user runs it: it prints one URL carrying this run's bridge token; that
// URL's page and token reach the real handlers (pre-connected to the demo service), the bare
// origin's WebSocket is refused, and Ctrl+C (SIGINT) stops it cleanly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import WebSocket from 'ws';

let child: ChildProcess;
let printed: URL;
let stderr = '';

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', join(process.cwd(), 'scripts', 'dev-web.ts')], { cwd: process.cwd(), env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  printed = await new Promise<URL>((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /open (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve(new URL(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`dev:web exited with ${code}: ${stderr}`)));
  });
}, 180_000);

afterAll(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
});

function open(query: string): Promise<WebSocket | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://${printed.host}/bridge${query}`, { origin: printed.origin });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
  });
}

describe('npm run dev:web', () => {
  it('prints a URL whose token reaches the handlers; without it the bridge refuses', async () => {
    expect(printed.hostname).toBe('127.0.0.1');
    const token = new URLSearchParams(printed.hash.slice(1)).get('bridge-token') ?? '';
    expect(token).toMatch(/^[\w-]{43}$/);
    const page = await fetch(new URL('/', printed));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/bridge-client.js');

    expect(await open('')).toBe(403);
    const ws = await open(`?bridge-token=${token}`);
    if (typeof ws === 'number') throw new Error(`refused with ${ws}`);
    const answer = await new Promise<{ id: number; result: { ok: boolean; value: { baseUrl: string } | null } }>((resolve) => {
      ws.once('message', (data) => resolve(JSON.parse(String(data)) as never));
      ws.send(JSON.stringify({ id: 1, channel: 'connection:get' }));
    });
    ws.close();
    expect(answer).toMatchObject({ id: 1, result: { ok: true, value: { baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//) } } });
  });

  it('prints the demo recruiter key next to the delivery key, and the printed recruiter key is accepted', async () => {
    await expect.poll(() => stderr, { timeout: 10_000 }).toContain('Press Ctrl+C to stop.');
    const delivery = /Delivery service: (\S+)\n {2}delivery key: (\S+) /.exec(stderr);
    const recruiter = /Recruiter service: (\S+)\n.*\n {2}(\S+) {2}organisation "([^"]+)"/.exec(stderr);
    expect(delivery, stderr).not.toBeNull();
    expect(recruiter, stderr).not.toBeNull();
    const me = await fetch(`${recruiter![1]}/me`, { headers: { Authorization: `Bearer ${recruiter![2]}`, Accept: 'application/json' } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { organization: { name: string } }).organization.name).toBe(recruiter![3]);
    const collections = await fetch(`${delivery![1]}/collections`, { headers: { Authorization: `Bearer ${delivery![2]}`, Accept: 'application/json' } });
    expect(collections.status).toBe(200);
  });

  it('stops on Ctrl+C', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});

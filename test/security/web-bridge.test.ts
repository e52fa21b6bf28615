// The web bridge (`npm run dev:web`, browser tests) drives the real handlers: settings, the
// key, syncs that write to disk. A page from another origin, a DNS-rebinding request (forged
// Host) and a connection without this run's token must get nothing, refused before any
// handler runs; the bridge's own page (opened from the URL it printed) still works.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startBridge, type Bridge } from '../../scripts/web-bridge/server';
import { launchChromium } from '../support/chromium';

let root: string;
let bridge: Bridge;
let bridgePort: number;
let attacker: Server;
let attackerPort: number;

/** The attack: every way a foreign page could reach the bridge, then every handler it wants. */
function attackPage(port: number): string {
  const script = `
    const targets = [
      'ws://127.0.0.1:${port}/bridge',
      'ws://localhost:${port}/bridge',
      'ws://127.0.0.1:${port}/bridge?bridge-token=guess',
      'ws://127.0.0.1:${port}/bridge?bridge-token=',
    ];
    const calls = [
      ['settings:update', { concurrency: 7 }],
      ['app:openExternal', { url: 'https://attacker.example/' }],
      ['connection:forget', undefined],
      ['settings:get', undefined],
    ];
    function attempt(url) {
      return new Promise((resolve) => {
        const answers = [];
        let socket;
        try { socket = new WebSocket(url); } catch (e) { resolve({ url, opened: false, answers }); return; }
        let opened = false;
        socket.onopen = () => {
          opened = true;
          calls.forEach(([channel, arg], i) => socket.send(JSON.stringify({ id: i + 1, channel, arg })));
          setTimeout(() => socket.close(), 1000);
        };
        socket.onmessage = (m) => answers.push(String(m.data));
        socket.onclose = () => resolve({ url, opened, answers });
      });
    }
    Promise.all(targets.map(attempt)).then((results) => { window.attackResults = results; });
  `;
  return `<!doctype html><title>attack</title><script>${script}</script>`;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ds-bridge-attack-'));
  // A stand-in renderer: the bridge's own page reads settings through window.api.
  const rendererDir = join(root, 'renderer');
  await mkdir(join(rendererDir, 'assets'), { recursive: true });
  await writeFile(join(rendererDir, 'index.html'), `<!doctype html><html><head><title>loading</title><script type="module" src="./assets/app.js"></script></head><body></body></html>`);
  await writeFile(join(rendererDir, 'assets', 'app.js'), `const r = await window.api.invoke('settings:get', undefined);\ndocument.title = JSON.stringify(r);\n`);
  bridge = await startBridge({ rendererDir, settingsDir: join(root, 'settings'), pickFolderAnswer: () => null });
  bridgePort = Number(new URL(bridge.origin).port);
  attacker = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(attackPage(bridgePort)));
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', () => resolve()));
  const address = attacker.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  attackerPort = address.port;
});

afterAll(async () => {
  await bridge?.close();
  await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()));
  if (root) await rm(root, { recursive: true, force: true });
});

async function settingsNow(): Promise<{ concurrency: number }> {
  const result = await bridge.services.handlers['settings:get'](undefined);
  if (!result.ok) throw new Error(result.error.message);
  return result.value as { concurrency: number };
}

/** A raw request with whatever headers an attacker chooses (Node's client sets none of its own). */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: bridgePort, path, headers, setHost: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a WebSocket with chosen Host/Origin/token; resolves with the HTTP status when refused. */
function connect(query: string, headers: { host?: string; origin?: string }): Promise<{ opened: boolean; status?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${bridgePort}/bridge${query}`, { headers: headers.host ? { Host: headers.host } : {}, ...(headers.origin ? { origin: headers.origin } : {}) });
    ws.on('open', () => {
      ws.close();
      resolve({ opened: true });
    });
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ opened: false, status: res.statusCode });
    });
    ws.on('error', () => resolve({ opened: false }));
  });
}

describe('web bridge admission', () => {
  it('a page from another loopback origin, in real Chromium, reaches no handler', async () => {
    const before = await settingsNow();
    const browser = await launchChromium();
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      for (const attackOrigin of [`http://127.0.0.1:${attackerPort}`, `http://localhost:${attackerPort}`]) {
        await page.goto(`${attackOrigin}/`);
        await page.waitForFunction(() => 'attackResults' in window, undefined, { timeout: 20_000 });
        const results = (await page.evaluate(() => (window as unknown as { attackResults: unknown }).attackResults)) as Array<{ url: string; opened: boolean; answers: string[] }>;
        expect(results).toHaveLength(4);
        for (const result of results) expect(result, result.url).toMatchObject({ opened: false, answers: [] });
      }
      expect(await settingsNow()).toEqual(before);
      expect(bridge.openedExternal).toEqual([]);

      // The control: the bridge's own page, opened from the printed URL, gets its answers.
      const own = await context.newPage();
      await own.goto(bridge.url);
      await own.waitForFunction(() => document.title.startsWith('{'), undefined, { timeout: 20_000 });
      expect(JSON.parse(await own.title())).toEqual({ ok: true, value: before });
      // The token left the address bar; a reload still connects (kept in this tab only).
      expect(own.url()).toBe(`${bridge.origin}/`);
      await own.reload();
      await own.waitForFunction(() => document.title.startsWith('{'), undefined, { timeout: 20_000 });
      expect(JSON.parse(await own.title())).toMatchObject({ ok: true });
    } finally {
      await browser.close();
    }
  });

  it('refuses a forged Host (DNS rebinding) for pages and for the WebSocket', async () => {
    expect((await rawGet('/', { Host: `127.0.0.1:${bridgePort}` })).status).toBe(200);
    expect((await rawGet('/', { Host: `localhost:${bridgePort}` })).status).toBe(200);
    for (const host of [`attacker.example:${bridgePort}`, '127.0.0.1', `127.0.0.1:${bridgePort + 1}`, `127.0.0.1.attacker.example:${bridgePort}`]) {
      const res = await rawGet('/', { Host: host });
      expect(res.status, host).toBe(403);
      expect(res.body).not.toContain('bridge-client');
    }
    // No Host at all: Node's parser already answers 400 for HTTP/1.1.
    expect([400, 403]).toContain((await rawGet('/', {})).status);
    const token = `?bridge-token=${bridge.token}`;
    expect(await connect(token, { host: `attacker.example:${bridgePort}`, origin: `http://attacker.example:${bridgePort}` })).toEqual({ opened: false, status: 403 });
  });

  it('refuses a WebSocket without the token, with a wrong one, or from another Origin', async () => {
    const origin = bridge.origin;
    const cases = {
      'no token': await connect('', { origin }),
      'empty token': await connect('?bridge-token=', { origin }),
      'wrong token': await connect(`?bridge-token=${bridge.token.slice(0, -1)}x`, { origin }),
      'token, no Origin': await connect(`?bridge-token=${bridge.token}`, {}),
      'token, foreign Origin': await connect(`?bridge-token=${bridge.token}`, { origin: 'http://127.0.0.1:1' }),
      'token, null Origin': await connect(`?bridge-token=${bridge.token}`, { origin: 'null' }),
    };
    for (const [name, result] of Object.entries(cases)) expect(result, name).toEqual({ opened: false, status: 403 });
    expect(await connect(`?bridge-token=${bridge.token}`, { origin })).toEqual({ opened: true });
    expect(await connect(`?bridge-token=${bridge.token}`, { origin: origin.replace('127.0.0.1', 'localhost') })).toEqual({ opened: true });
  });

  it('gives each run its own token', async () => {
    const other = await startBridge({ rendererDir: join(root, 'renderer'), settingsDir: join(root, 'settings-2'), pickFolderAnswer: () => null });
    try {
      expect(other.token).not.toBe(bridge.token);
      expect(other.token.length).toBeGreaterThanOrEqual(43);
    } finally {
      await other.close();
    }
  });
});

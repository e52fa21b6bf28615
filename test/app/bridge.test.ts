// The browser test bridge end to end: static serving with the injected bridge script, the
// RendererApi over a WebSocket backed by the real handlers and service, event pushes, and
// the same page in real Chromium under the app's CSP.
import { request } from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../support/chromium';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startReferenceService, type RunningService } from '../../src-service/index';
import { CONTENT_SECURITY_POLICY } from '../../src-main/app/security';
import type { EventChannels, SyncRunState } from '../../src-shared/ipc-contract';
import { injectBridgeClient, startBridge, type Bridge } from '../../scripts/web-bridge/server';

let root: string;
let service: RunningService;
let bridge: Bridge;
let apiKey: string;
let collectionId: number;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ds-bridge-'));
  service = await startReferenceService({ sets: 3, fileSize: 16 * 1024, slots: 2, dataDir: join(root, 'media') });
  const client = service.clients[0];
  if (!client || client.collections[0] === undefined) throw new Error('no client collection');
  apiKey = client.apiKey;
  collectionId = client.collections[0];
  // A stand-in renderer: enough to check serving, injection and window.api under the CSP.
  const rendererDir = join(root, 'renderer');
  await mkdir(join(rendererDir, 'assets'), { recursive: true });
  await writeFile(
    join(rendererDir, 'index.html'),
    `<!doctype html><html><head><meta charset="utf-8"><title>loading</title><script type="module" src="./assets/app.js"></script></head><body></body></html>`,
  );
  await writeFile(
    join(rendererDir, 'assets', 'app.js'),
    `const r = await window.api.invoke('settings:get', undefined);\n` +
      `const bad = await window.api.invoke('no:such', undefined);\n` +
      `document.title = JSON.stringify({ ok: r.ok, concurrency: r.value && r.value.concurrency, bad: bad.error && bad.error.kind });\n`,
  );
  bridge = await startBridge({ rendererDir, settingsDir: join(root, 'settings'), pickFolderAnswer: () => join(root, 'picked') });
});

afterAll(async () => {
  await bridge?.close();
  await service?.close();
  await rm(root, { recursive: true, force: true });
});

function get(path: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL(bridge.url);
  return new Promise((resolve, reject) => {
    // Raw path: no client-side normalisation of dot segments.
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

class BridgeTestClient {
  private nextId = 1;
  readonly raw: string[] = [];
  readonly pushes: Array<{ event: string; payload: unknown }> = [];
  private readonly waiting = new Map<number, (r: unknown) => void>();
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const text = String(data);
      this.raw.push(text);
      const msg = JSON.parse(text) as { id?: number; result?: unknown; event?: string; payload?: unknown };
      if (typeof msg.id === 'number') this.waiting.get(msg.id)?.(msg.result);
      else if (msg.event) this.pushes.push({ event: msg.event, payload: msg.payload });
    });
  }
  /** Connects as the bridge's own page would: its Origin and this run's token. */
  static async open(target: Bridge): Promise<BridgeTestClient> {
    const ws = new WebSocket(`${target.origin.replace(/^http/, 'ws')}/bridge?bridge-token=${target.token}`, { origin: target.origin });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new BridgeTestClient(ws);
  }
  invoke(channel: string, arg?: unknown): Promise<{ ok: boolean; value?: unknown; error?: { kind: string; message: string } }> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve as (r: unknown) => void);
      this.ws.send(JSON.stringify({ id, channel, arg }));
    });
  }
  close(): void {
    this.ws.close();
  }
}

describe('bridge server', () => {
  it('serves index.html with the bridge script before the module script, under the CSP', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(page.body.indexOf('<script src="/bridge-client.js"></script>')).toBeGreaterThan(0);
    expect(page.body.indexOf('/bridge-client.js')).toBeLessThan(page.body.indexOf('type="module"'));
    const script = await get('/bridge-client.js');
    expect(script.status).toBe(200);
    expect(script.body).toContain('WebSocket');
    expect(injectBridgeClient('<html><head></head></html>')).toContain('<script src="/bridge-client.js"></script></head>');
  });

  it('never serves files outside the renderer folder', async () => {
    for (const path of ['/../settings/settings.json', '/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2f..%2fsettings%2fsettings.json']) {
      const res = await get(path);
      // Either refused, or normalised inside the folder (then the app's index.html answers).
      if (res.status === 200) expect(res.body).toContain('/bridge-client.js');
      else expect([400, 403, 404]).toContain(res.status);
      expect(res.body).not.toContain('root:');
      expect(res.body).not.toContain('"concurrency"');
    }
    expect((await get('/assets/missing.js')).status).toBe(404);
  });

  it('answers the RendererApi over the WebSocket with the real handlers and pushes sync events', async () => {
    const client = await BridgeTestClient.open(bridge);
    try {
      expect(await client.invoke('connection:get')).toEqual({ ok: true, value: null });
      expect(await client.invoke('nope:nope', {})).toMatchObject({ ok: false, error: { kind: 'invalid_argument' } });
      expect(await client.invoke('settings:update', { concurrency: 99 })).toMatchObject({ ok: false, error: { kind: 'invalid_argument' } });
      const connected = await client.invoke('connection:connect', { baseUrl: service.deliveryBaseUrl, apiKey });
      expect(connected).toMatchObject({ ok: true, value: { baseUrl: service.deliveryBaseUrl } });
      expect(await client.invoke('dataset:pickFolder', { collectionId })).toEqual({ ok: true, value: { dest: join(root, 'picked') } });
      expect(await client.invoke('sync:start', { collectionId })).toMatchObject({ ok: true, value: { running: true } });
      const deadline = Date.now() + 30_000;
      while (!client.pushes.some((p) => p.event === 'sync:state' && !(p.payload as SyncRunState).running)) {
        if (Date.now() > deadline) throw new Error('no final sync:state push');
        await new Promise((r) => setTimeout(r, 20));
      }
      const events = client.pushes.filter((p) => p.event === 'sync:events').flatMap((p) => (p.payload as EventChannels['sync:events']).events);
      expect(events.at(-1)).toMatchObject({ type: 'summary', summary: { exitCode: 0, filesDownloaded: 6 } });
      expect(bridge.notifications.map((n) => n.title)).toContain('New files synced');
      expect(await client.invoke('app:openExternal', { url: 'https://example.com/docs' })).toEqual({ ok: true, value: null });
      expect(bridge.openedExternal).toEqual(['https://example.com/docs']);
      // The key went in once (connect) and never came back out.
      expect(client.raw.join('\n')).not.toContain(apiKey);
    } finally {
      client.close();
    }
  });

  it('runs in Chromium: window.api works under the CSP', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') violations.push(`${m.text()} ${m.location().url}`);
      });
      await page.goto(bridge.url);
      await page.waitForFunction(() => document.title.startsWith('{'), undefined, { timeout: 15_000 });
      expect(JSON.parse(await page.title())).toEqual({ ok: true, concurrency: 4, bad: 'invalid_argument' });
      expect(violations.filter((v) => !v.includes('favicon'))).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});

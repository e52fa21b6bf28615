// The desktop app's system proxy (src-main/api/system-proxy.ts): the PAC-style answer of
// Electron's session.resolveProxy read as the app follows it, and a whole sync through a real
// proxy (tinyproxy on loopback) chosen that way, to the service in its HTTPS mode (plain http
// is refused for any host but the loopback names, and those never go to a proxy: so the
// service listens on 127.0.0.2).
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parsePacAnswer, useSystemProxy } from '../../src-main/api/system-proxy';
import { runSync } from '../../src-main/sync/engine';
import type { SyncEvent } from '../../src-shared/sync-events';
import { FAST_TUNING } from '../engine/helpers';
import { findBinary, startTinyproxy, startTlsService, type RunningProxy, type TlsService } from './support';

describe('parsePacAnswer', () => {
  it('follows the first PROXY or DIRECT entry', () => {
    expect(parsePacAnswer('PROXY proxy.corp:3128; DIRECT')).toEqual({ choice: { direct: false, url: 'http://proxy.corp:3128/' }, notices: [] });
    expect(parsePacAnswer('DIRECT')).toEqual({ choice: { direct: true }, notices: [] });
    expect(parsePacAnswer(' proxy [::1]:8080 ').choice).toEqual({ direct: false, url: 'http://[::1]:8080/' });
  });

  it('skips HTTPS, SOCKS and QUIC proxies with a clear notice, and falls back to the next entry or to a direct connection', () => {
    const next = parsePacAnswer('SOCKS5 socks.corp:1080; PROXY proxy.corp:3128');
    expect(next.choice).toEqual({ direct: false, url: 'http://proxy.corp:3128/' });
    expect(next.notices).toEqual([expect.stringMatching(/SOCKS5 proxy, which Dataset Sync does not support/)]);
    for (const answer of ['HTTPS secure.corp:443', 'SOCKS socks.corp:1080', 'SOCKS4 s:1', 'QUIC q.corp:443']) {
      const r = parsePacAnswer(answer);
      expect(r.choice).toEqual({ direct: true });
      expect(r.notices.join(' ')).toMatch(/does not support.*connecting directly/);
    }
    expect(parsePacAnswer('').notices).toEqual([]);
  });

  it('never repeats credentials found in an answer', () => {
    const r = parsePacAnswer('PROXY alice:s3cret@proxy.corp:3128; SOCKS5 bob:hunter2@s:1');
    expect(r.choice).toEqual({ direct: true });
    expect(r.notices.join(' ')).not.toMatch(/s3cret|hunter2|alice|bob/);
  });
});

const tinyproxyBinary = findBinary('tinyproxy');
describe.skipIf(!tinyproxyBinary)('a sync through the system proxy', () => {
  let proxy: RunningProxy;
  let t: TlsService;
  let root: string;
  const saved: Record<string, string | undefined> = {};
  const proxyVars = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];
  beforeAll(async () => {
    // The variables would take precedence over the system's settings.
    for (const v of proxyVars) {
      saved[v] = process.env[v];
      delete process.env[v];
    }
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-sysproxy-'));
    t = await startTlsService('127.0.0.2');
    process.env.NODE_EXTRA_CA_CERTS = t.certs.caCertPath; // read at the first https connection
    proxy = await startTinyproxy(tinyproxyBinary!);
  }, 60_000);
  afterEach(() => useSystemProxy(undefined));
  afterAll(async () => {
    await proxy?.stop();
    await t?.close();
    if (root) await fs.rm(root, { recursive: true, force: true });
    for (const v of proxyVars) if (saved[v] !== undefined) process.env[v] = saved[v];
  });

  async function syncWith(answer: string, dest: string) {
    const asked: string[] = [];
    const notices: string[] = [];
    useSystemProxy({
      resolveProxy: async (url) => {
        asked.push(url);
        return answer;
      },
      onNotice: (m) => notices.push(m),
    });
    const events: SyncEvent[] = [];
    const summary = await runSync(
      { baseUrl: t.svc.deliveryBaseUrl, apiKey: t.apiKey, collectionId: t.collectionId, dest: path.join(root, dest), tuning: FAST_TUNING },
      (e) => events.push(e),
    );
    return { summary, events, asked, notices };
  }

  it('sends every request through the proxy the system names for the service', async () => {
    const r = await syncWith(`PROXY 127.0.0.1:${proxy.port}; DIRECT`, 'via-proxy');
    expect(r.summary.fatal).toBeUndefined();
    expect(r.summary.exitCode).toBe(0);
    expect(r.asked).toEqual([`${t.svc.origin}/`]);
    expect(await proxy.log()).toContain(`CONNECT ${new URL(t.svc.origin).host} HTTP/1.1`);
    expect(r.notices).toEqual([]);
  });

  it('connects directly for DIRECT, and for a SOCKS proxy (with a notice that says it is not supported)', async () => {
    const before = (await proxy.log()).length;
    const direct = await syncWith('DIRECT', 'direct');
    expect(direct.summary.exitCode).toBe(0);
    const socks = await syncWith(`SOCKS5 127.0.0.1:${proxy.port}`, 'socks');
    expect(socks.summary.exitCode).toBe(0);
    expect(socks.notices.join('\n')).toMatch(/SOCKS5 proxy, which Dataset Sync does not support[\s\S]*connecting directly/);
    expect((await proxy.log()).slice(before)).not.toContain(`CONNECT ${new URL(t.svc.origin).host}`);
  });

  it('connects directly when the system cannot say', async () => {
    const notices: string[] = [];
    useSystemProxy({ resolveProxy: () => Promise.reject(new Error('no session yet')), onNotice: (m) => notices.push(m) });
    const summary = await runSync(
      { baseUrl: t.svc.deliveryBaseUrl, apiKey: t.apiKey, collectionId: t.collectionId, dest: path.join(root, 'unknown'), tuning: FAST_TUNING },
      () => undefined,
    );
    expect(summary.exitCode).toBe(0);
    expect(notices).toEqual([expect.stringMatching(/could not be read \(no session yet\); connecting directly/)]);
  });
});

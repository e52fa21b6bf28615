// createDispatcher through real proxies on loopback: tinyproxy (plain forwarding and CONNECT)
// and squid with Basic authentication. The proxies' own logs prove the requests went through
// them; NO_PROXY is proven by a proxy address where nothing listens. The services listen on
// 127.0.0.2, because createDispatcher never sends 127.0.0.1, ::1 or localhost to a proxy.
import diagnostics from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promises as fs } from 'node:fs';
import { inspect } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../src-main/api/dispatcher';
import { startReferenceService, type RunningService } from '../../src-service/index';
import { closedLoopbackPort } from '../support/closed-port';
import { cleanEnv, fetchInChild, findBinary, proxyLogWith, startTinyproxy, startTlsService, useSquid, type RunningProxy, type TlsService } from './support';

let plain: RunningService;
let plainRoot: string;
let secure: TlsService;
beforeAll(async () => {
  plainRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-proxy-svc-'));
  plain = await startReferenceService({ dataDir: plainRoot, seed: 5, sets: 2, fileSize: 32 * 1024, slots: 2, host: '127.0.0.2' });
  secure = await startTlsService('127.0.0.2');
}, 120_000);
afterAll(async () => {
  await plain?.close();
  await secure?.close();
  if (plainRoot) await fs.rm(plainRoot, { recursive: true, force: true });
});

const plainSetsUrl = () => `${plain.deliveryBaseUrl}/collections/${plain.clients[0]!.collections[0]}/sets`;
const secureSetsUrl = () => `${secure.svc.deliveryBaseUrl}/collections/${secure.collectionId}/sets`;
const plainAuth = () => ({ authorization: `Bearer ${plain.clients[0]!.apiKey}` });

/** One GET in this process through a dispatcher built from `env`; the status or the error. */
async function get(url: string, env: NodeJS.ProcessEnv): Promise<{ status: number } | { error: Error }> {
  const dispatcher = createDispatcher({ env });
  try {
    const res = await request(url, { dispatcher, headers: plainAuth() });
    await res.body.dump();
    return { status: res.statusCode };
  } catch (e) {
    return { error: e as Error };
  } finally {
    await dispatcher.close();
  }
}

describe('NO_PROXY', () => {
  it('bypasses the proxy for the listed hosts (here the proxy address has nothing listening)', async () => {
    const dead = `http://127.0.0.1:${await closedLoopbackPort()}`;
    expect(await get(plainSetsUrl(), { HTTP_PROXY: dead, NO_PROXY: 'localhost,127.0.0.2' })).toEqual({ status: 200 });
    expect(await get(plainSetsUrl(), { http_proxy: dead, no_proxy: '127.0.0.2' })).toEqual({ status: 200 });
    expect(await get(plainSetsUrl(), { http_proxy: dead, no_proxy: '*' })).toEqual({ status: 200 });
    const refused = await get(plainSetsUrl(), { HTTP_PROXY: dead, NO_PROXY: 'example.org' });
    expect('error' in refused && refused.error.message).toMatch(/ECONNREFUSED/);
  });

  it('never sends 127.0.0.1 or localhost to a proxy, even when NO_PROXY does not list them', async () => {
    const dead = `http://127.0.0.1:${await closedLoopbackPort()}`;
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-proxy-local-'));
    const svc = await startReferenceService({ dataDir: root, seed: 5, sets: 1, fileSize: 1024, slots: 1 });
    try {
      const url = `${svc.deliveryBaseUrl}/collections/${svc.clients[0]!.collections[0]}/sets`;
      const dispatcher = createDispatcher({ env: { HTTP_PROXY: dead, NO_PROXY: 'example.org' } });
      try {
        for (const target of [url, url.replace('127.0.0.1', 'localhost')]) {
          const res = await request(target, { dispatcher, headers: { authorization: `Bearer ${svc.clients[0]!.apiKey}` } });
          await res.body.dump();
          expect(res.statusCode).toBe(200);
        }
      } finally {
        await dispatcher.close();
      }
    } finally {
      await svc.close();
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});

const tinyproxyBinary = findBinary('tinyproxy');
describe.skipIf(!tinyproxyBinary)(`through tinyproxy${tinyproxyBinary ? '' : ' (skipped: tinyproxy is not installed; apt-get install tinyproxy)'}`, () => {
  let proxy: RunningProxy;
  beforeAll(async () => {
    proxy = await startTinyproxy(tinyproxyBinary!);
  });
  afterAll(async () => {
    await proxy?.stop();
  });

  it('forwards a plain-HTTP request (absolute URL, no tunnel)', async () => {
    expect(await get(plainSetsUrl(), { HTTP_PROXY: proxy.url })).toEqual({ status: 200 });
    expect(await proxy.log()).toContain(`GET ${plainSetsUrl()} HTTP/1.1`);
  });

  it('opens at most `connections` connections to the proxy for plain-HTTP forwarding', async () => {
    await plain.admin.addFault({ api: 'delivery' }, { type: 'latency', ms: 300 }, 8);
    // tinyproxy closes a connection after each request, so count connections open at once.
    let open = 0;
    let peak = 0;
    const onConnected = (message: unknown) => {
      const socket = (message as { socket: Socket }).socket;
      peak = Math.max(peak, ++open);
      socket.once('close', () => open--);
    };
    diagnostics.subscribe('undici:client:connected', onConnected);
    const dispatcher = createDispatcher({ connections: 2, env: { HTTP_PROXY: proxy.url } });
    try {
      const getOnce = async () => {
        const res = await request(plainSetsUrl(), { dispatcher, headers: plainAuth() });
        await res.body.dump();
        return res.statusCode;
      };
      // A busy tinyproxy may close a connection before answering (CI once: "other side closed",
      // UND_ERR_SOCKET): that request is sent once more. What this test counts, the connections
      // open at once, includes the retry's.
      const statuses = await Promise.all(
        Array.from({ length: 8 }, () =>
          getOnce().catch((e: unknown) => {
            if ((e as { code?: string }).code !== 'UND_ERR_SOCKET') throw e;
            return getOnce();
          }),
        ),
      );
      expect(statuses).toEqual(Array(8).fill(200));
    } finally {
      await dispatcher.close();
      await plain.admin.clearFaults();
      diagnostics.unsubscribe('undici:client:connected', onConnected);
    }
    expect(peak).toBe(2);
  });

  it('tunnels HTTPS with CONNECT, over HTTP/1.1 and HTTP/2', async () => {
    const env = cleanEnv({ HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: secure.certs.caCertPath });
    expect(await fetchInChild(secureSetsUrl(), { apiKey: secure.apiKey, env })).toMatchObject({ ok: true, status: 200, alpn: 'http/1.1' });
    expect(await fetchInChild(secureSetsUrl(), { apiKey: secure.apiKey, allowH2: true, env })).toMatchObject({ ok: true, status: 200, alpn: 'h2' });
    expect(await proxy.log()).toContain(`CONNECT ${new URL(secure.svc.origin).host} HTTP/1.1`);
  });

  it('still checks the certificate at the end of the tunnel', async () => {
    const env = cleanEnv({ HTTPS_PROXY: proxy.url });
    expect(await fetchInChild(secureSetsUrl(), { apiKey: secure.apiKey, env })).toMatchObject({ ok: false, code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
  });
});

const squidBinary = findBinary('squid');
describe.skipIf(!squidBinary)(`through squid with Basic authentication${squidBinary ? '' : ' (skipped: squid is not installed; apt-get install squid)'}`, () => {
  const user = 'alice';
  const password = 'Pr0xy-s3cret';
  const squid = useSquid(squidBinary!, user, password);
  const withCredentials = squid.urlWith;

  it('forwards plain HTTP and tunnels HTTPS with the credentials of the proxy URL', async () => {
    expect(await get(plainSetsUrl(), { http_proxy: withCredentials(password) })).toEqual({ status: 200 });
    const env = cleanEnv({ HTTPS_PROXY: withCredentials(password), NODE_EXTRA_CA_CERTS: secure.certs.caCertPath });
    expect(await fetchInChild(secureSetsUrl(), { apiKey: secure.apiKey, allowH2: true, env })).toMatchObject({ ok: true, status: 200, alpn: 'h2' });
    const log = await proxyLogWith(squid.proxy, new RegExp(`CONNECT ${new URL(secure.svc.origin).host} ${user} `));
    expect(log).toMatch(new RegExp(`GET ${plainSetsUrl().replace(/[.?]/g, '\\$&')} ${user} `));
    expect(log).toMatch(new RegExp(`CONNECT ${new URL(secure.svc.origin).host} ${user} `));
  });

  it('fails clearly on a wrong password, without the password (or its Basic token) in the error', async () => {
    const wrong = 'Wr0ng-pa55word';
    const forwarded = await get(plainSetsUrl(), { HTTP_PROXY: withCredentials(wrong) });
    expect('error' in forwarded).toBe(true);
    const error = (forwarded as { error: Error }).error;
    expect(error).toMatchObject({ code: 'PROXY_REFUSED', status: 407 });
    expect(error.message).toBe(`The proxy ${squid.proxy.url.slice('http://'.length)} refused the request with HTTP 407 (Proxy Authentication Required: check the user name and password in the proxy URL).`);
    const tunnelled = await fetchInChild(secureSetsUrl(), { apiKey: secure.apiKey, env: cleanEnv({ HTTPS_PROXY: withCredentials(wrong) }) });
    expect(tunnelled).toMatchObject({ ok: false, code: 'PROXY_REFUSED', message: error.message });
    const everything = inspect(error, { depth: 10 }) + JSON.stringify(tunnelled);
    for (const secret of [wrong, encodeURIComponent(wrong), Buffer.from(`${user}:${wrong}`).toString('base64')]) expect(everything).not.toContain(secret);
  });

  it('fails clearly without credentials', async () => {
    const result = await get(plainSetsUrl(), { HTTP_PROXY: squid.proxy.url });
    expect('error' in result && result.error).toMatchObject({ code: 'PROXY_REFUSED', status: 407 });
  });
});

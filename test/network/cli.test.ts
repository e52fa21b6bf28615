// The CLI as users run it, against the HTTPS service: a certificate it does not trust fails
// clearly, NODE_EXTRA_CA_CERTS makes it trusted, and a company proxy with a password (squid) is
// used from HTTPS_PROXY, never showing the password.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNdjson, runCli } from '../engine/helpers';
import { findBinary, startTlsService, useSquid, type TlsService } from './support';

let t: TlsService;
let work: string;
beforeAll(async () => {
  // 127.0.0.2: the CLI never sends 127.0.0.1 to a proxy.
  t = await startTlsService('127.0.0.2');
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-net-cli-'));
}, 120_000);
afterAll(async () => {
  await t?.close();
  if (work) await fs.rm(work, { recursive: true, force: true });
});

let runs = 0;
async function sync(env: Record<string, string | undefined>) {
  const dest = path.join(work, `dest-${++runs}`);
  const r = await runCli(['sync', '--base-url', t.svc.deliveryBaseUrl, '--collection', String(t.collectionId), '--dest', dest, '--json'], {
    env: { DATASET_SYNC_API_KEY: t.apiKey, HTTPS_PROXY: undefined, https_proxy: undefined, HTTP_PROXY: undefined, http_proxy: undefined, NO_PROXY: undefined, no_proxy: undefined, NODE_EXTRA_CA_CERTS: undefined, ...env },
    timeoutMs: 90_000,
  });
  const summary = parseNdjson(r.stdout).find((e) => e.type === 'summary');
  return { ...r, summary: summary?.type === 'summary' ? summary.summary : undefined };
}

describe('the CLI against the HTTPS service', () => {
  it('fails with a clear certificate error when the CA is not trusted', async () => {
    const r = await sync({});
    expect(r.code).toBe(4);
    expect(r.stdout + r.stderr).toContain('TLS certificate not accepted: UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('syncs every file when the CA is given by NODE_EXTRA_CA_CERTS', async () => {
    const r = await sync({ NODE_EXTRA_CA_CERTS: t.certs.caCertPath });
    expect(r.code).toBe(0);
    expect(r.summary?.filesDownloaded).toBe(3 * 2);
  });
});

const squidBinary = findBinary('squid');
describe.skipIf(!squidBinary)(`the CLI through squid with a password${squidBinary ? '' : ' (skipped: squid is not installed; apt-get install squid)'}`, () => {
  const user = 'bob';
  const password = 'Cli-pr0xy-secret';
  const squid = useSquid(squidBinary!, user, password);

  it('syncs through the proxy from HTTPS_PROXY (CONNECT, the certificate still checked)', async () => {
    const r = await sync({ HTTPS_PROXY: squid.urlWith(password), NODE_EXTRA_CA_CERTS: t.certs.caCertPath });
    expect(r.code).toBe(0);
    expect(r.summary?.filesDownloaded).toBe(3 * 2);
    expect(await squid.proxy.log()).toMatch(new RegExp(`CONNECT ${new URL(t.svc.origin).host.replace(/\./g, '\\.')} ${user} `));
  });

  it('fails clearly on a wrong proxy password and never prints it', async () => {
    const wrong = 'Wr0ng-cli-pa55';
    const r = await sync({ https_proxy: squid.urlWith(wrong), NODE_EXTRA_CA_CERTS: t.certs.caCertPath });
    expect(r.code).toBe(4);
    expect(r.stdout + r.stderr).toMatch(/The proxy [^ ]+ refused the request with HTTP 407 \(Proxy Authentication Required/);
    for (const secret of [wrong, encodeURIComponent(wrong), Buffer.from(`${user}:${wrong}`).toString('base64')]) expect(r.stdout + r.stderr).not.toContain(secret);
  });
});

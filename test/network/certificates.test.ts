// Which certificate authorities createDispatcher trusts, tested against the HTTPS service with
// a CA made for the run: not trusted by default, trusted through NODE_EXTRA_CA_CERTS, trusted
// when installed in the OS store the way a company installs its CA. Each case runs in a fresh
// process, as the CLI reads the variable and the store at start-up.
import { execFile } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, fetchInChild, isRoot, startTlsService, type TlsService } from './support';

const run = promisify(execFile);

let t: TlsService;
beforeAll(async () => {
  t = await startTlsService();
});
afterAll(async () => {
  await t?.close();
});

const setsUrl = () => `${t.svc.deliveryBaseUrl}/collections/${t.collectionId}/sets`;

describe('certificate trust of createDispatcher', () => {
  it('refuses the service with a certificate error when its CA is trusted nowhere', async () => {
    const result = await fetchInChild(setsUrl(), { apiKey: t.apiKey, env: cleanEnv() });
    expect(result).toMatchObject({ ok: false, code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', message: 'unable to verify the first certificate' });
  });

  it('trusts a CA given by NODE_EXTRA_CA_CERTS', async () => {
    const result = await fetchInChild(setsUrl(), { apiKey: t.apiKey, env: cleanEnv({ NODE_EXTRA_CA_CERTS: t.certs.caCertPath }) });
    expect(result).toMatchObject({ ok: true, status: 200, alpn: 'http/1.1' });
  });

  it('negotiates HTTP/2 by ALPN when allowH2 is on', async () => {
    const result = await fetchInChild(setsUrl(), { apiKey: t.apiKey, allowH2: true, env: cleanEnv({ NODE_EXTRA_CA_CERTS: t.certs.caCertPath }) });
    expect(result).toMatchObject({ ok: true, status: 200, alpn: 'h2' });
  });

  const debianStore = existsSync('/usr/sbin/update-ca-certificates') && existsSync('/usr/local/share/ca-certificates');
  const skipReason = !isRoot ? 'not running as root' : !debianStore ? 'no Debian CA store (update-ca-certificates)' : '';
  it.skipIf(skipReason !== '')(`trusts a CA installed in the OS store with update-ca-certificates${skipReason ? ` (skipped: ${skipReason})` : ''}`, async () => {
    const bundle = '/etc/ssl/certs/ca-certificates.crt';
    const countCerts = async () => ((await fs.readFile(bundle, 'utf8')).match(/BEGIN CERTIFICATE/g) ?? []).length;
    const before = await countCerts();
    // A name of our own, so the company CAs already installed on the machine are never touched.
    const installed = `/usr/local/share/ca-certificates/dataset-sync-test-${process.pid}-${Date.now()}.crt`;
    await fs.writeFile(installed, t.certs.caCert, { mode: 0o644 });
    try {
      await run('update-ca-certificates');
      expect(await countCerts()).toBe(before + 1);
      const result = await fetchInChild(setsUrl(), { apiKey: t.apiKey, env: cleanEnv() });
      expect(result).toMatchObject({ ok: true, status: 200 });
    } finally {
      await fs.rm(installed, { force: true });
      await run('update-ca-certificates');
    }
    expect(await countCerts()).toBe(before);
    const afterRemoval = await fetchInChild(setsUrl(), { apiKey: t.apiKey, env: cleanEnv() });
    expect(afterRemoval).toMatchObject({ ok: false, code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    // update-ca-certificates rebuilds the whole bundle twice: over a minute on a loaded machine.
  }, 180_000);
});

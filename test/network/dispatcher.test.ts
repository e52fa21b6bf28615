// createDispatcher's reading of the environment and its care with proxy credentials; no
// network beyond loopback.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import * as tls from 'node:tls';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { createDispatcher, isCertificateError, proxySettingsFromEnv, redactCredentials, trustedCertificates } from '../../src-main/api/dispatcher';
import { startReferenceService } from '../../src-service/index';
import { closedLoopbackPort } from '../support/closed-port';

describe('proxySettingsFromEnv', () => {
  it('reads lower-case variables before upper-case ones, as curl does', () => {
    expect(proxySettingsFromEnv({ http_proxy: 'http://a:1', HTTP_PROXY: 'http://b:2', HTTPS_PROXY: 'http://c:3', NO_PROXY: 'x' })).toEqual({
      httpProxy: 'http://a:1/',
      httpsProxy: 'http://c:3/',
      noProxy: 'x',
    });
    expect(proxySettingsFromEnv({})).toEqual({ httpProxy: undefined, httpsProxy: undefined, noProxy: '' });
  });

  it('takes a proxy without a scheme for an HTTP proxy and ignores empty values', () => {
    expect(proxySettingsFromEnv({ HTTPS_PROXY: 'proxy.corp.example:3128', http_proxy: ' ' })).toMatchObject({
      httpsProxy: 'http://proxy.corp.example:3128/',
      httpProxy: undefined,
    });
  });

  it('rejects a malformed or unsupported proxy URL naming the variable, never showing its credentials', () => {
    expect(() => proxySettingsFromEnv({ HTTPS_PROXY: 'http://bob:hunter22@bad host:80' })).toThrow('HTTPS_PROXY is not a valid proxy URL: http://***@bad host:80');
    expect(() => proxySettingsFromEnv({ https_proxy: 'socks5://bob:hunter22@proxy:1080' })).toThrow(
      'https_proxy must be an http:// or https:// proxy URL, got socks5:// (socks5://***@proxy:1080)',
    );
  });
});

describe('redactCredentials', () => {
  it('hides user and password of every URL in a text', () => {
    expect(redactCredentials('via http://u:p%40ss@proxy:3128/ and https://token@h/x, not mail@example.org')).toBe(
      'via http://***@proxy:3128/ and https://***@h/x, not mail@example.org',
    );
  });
});

describe('createDispatcher', () => {
  it('keeps the proxy password out of a connection error to an unreachable proxy (127.0.0.2: 127.0.0.1 is never proxied)', async () => {
    const port = await closedLoopbackPort();
    const dispatcher = createDispatcher({ env: { HTTP_PROXY: `http://carol:Sup3r-secret@127.0.0.1:${port}` } });
    try {
      const error = await request(`http://127.0.0.2:${await closedLoopbackPort()}/x`, { dispatcher }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect(inspect(error, { depth: 10 })).not.toMatch(/Sup3r-secret|carol:/);
      expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    } finally {
      await dispatcher.close();
    }
  });

  it('hands a cancelled request its abort reason (a DOMException, whose message is read-only)', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-dispatcher-'));
    const svc = await startReferenceService({ dataDir: root, sets: 1, fileSize: 1024, slots: 1 });
    const dispatcher = createDispatcher();
    try {
      await svc.admin.addFault({ api: 'delivery' }, { type: 'latency', ms: 30_000 }, 1);
      const controller = new AbortController();
      const pending = request(`${svc.deliveryBaseUrl}/me`, { dispatcher, signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      await dispatcher.destroy();
      await svc.close();
      await fs.rm(root, { recursive: true, force: true });
    }
  });

  it("trusts Node's bundled roots as well as the OS store (the OS store alone is tested in certificates.test.ts)", () => {
    const trusted = new Set(trustedCertificates());
    for (const root of tls.rootCertificates) expect(trusted.has(root)).toBe(true);
    expect(trusted.size).toBeGreaterThanOrEqual(tls.rootCertificates.length);
  });
});

describe('isCertificateError', () => {
  it('knows the verification codes Node reports, and nothing else', () => {
    for (const code of ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'ERR_TLS_CERT_ALTNAME_INVALID', 'INVALID_CA', 'HOSTNAME_MISMATCH']) {
      expect(isCertificateError(Object.assign(new Error('x'), { code }))).toBe(true);
    }
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET', 'PROXY_REFUSED', undefined]) expect(isCertificateError(Object.assign(new Error('x'), { code }))).toBe(false);
    expect(isCertificateError(null)).toBe(false);
  });
});

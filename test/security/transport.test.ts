// Transport: plain http:// only on loopback, and TLS certificate errors are errors (exit 4 with
// a message naming the certificate problem), never bypassed.
import { execFileSync } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseUrlError, validateBaseUrl } from '../../src-main/api/base-url';
import { runSync } from '../../src-main/sync/engine';
import { listFiles, runCli, tempDir } from '../engine/helpers';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
let work: string;
let server: https.Server | undefined;
let tlsBaseUrl = '';
let requestsSeen = 0;
let opensslMissing: string | null = null;

beforeAll(async () => {
  work = await tempDir('dsync-tls-');
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', 'key.pem', '-out', 'cert.pem'], {
      cwd: work,
      stdio: 'pipe',
    });
  } catch (e) {
    opensslMissing = `openssl could not make a certificate: ${(e as Error).message}`;
    return;
  }
  server = https.createServer({ key: readFileSync(path.join(work, 'key.pem')), cert: readFileSync(path.join(work, 'cert.pem')) }, (_req, res) => {
    requestsSeen++; // only reached if a client accepted the certificate
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"collections": []}');
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  tlsBaseUrl = `https://localhost:${address.port}/api/v1/partner`;
});
afterAll(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await fs.rm(work, { recursive: true, force: true });
});

describe('TLS certificate errors', () => {
  it('a self-signed certificate fails the CLI with exit 4 and a certificate error; the request never reaches the server', async (ctx) => {
    if (opensslMissing) ctx.skip(opensslMissing);
    const dest = path.join(work, 'ds');
    const env = { DATASET_SYNC_API_KEY: 'dsk_tls_probe_key', DATASET_SYNC_MAX_ATTEMPTS: '2' };
    const sync = await runCli(['sync', '--base-url', tlsBaseUrl, '--collection', '1', '--dest', dest, '--json'], { env });
    expect(sync.code).toBe(4);
    expect(sync.stderr + sync.stdout).toMatch(/TLS certificate not accepted: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_TLS_CERT_ALTNAME_INVALID)/);
    const collections = await runCli(['collections', '--base-url', tlsBaseUrl], { env });
    expect(collections.code).toBe(4);
    expect(collections.stderr).toMatch(/TLS certificate not accepted: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_TLS_CERT_ALTNAME_INVALID)/);
    expect(requestsSeen).toBe(0);
    expect(await listFiles(path.join(dest, 'sets'))).toEqual([]);
  });

  it('the engine reports it as a network failure naming the certificate problem', async (ctx) => {
    if (opensslMissing) ctx.skip(opensslMissing);
    const summary = await runSync(
      { baseUrl: tlsBaseUrl, apiKey: 'dsk_tls_probe_key', collectionId: 1, dest: path.join(work, 'engine-ds'), tuning: { retryBaseMs: 10, maxAttempts: 2 } },
      () => undefined,
    );
    expect(summary.exitCode).toBe(4);
    expect(summary.fatal?.kind).toBe('network');
    expect(summary.fatal?.message).toMatch(/TLS certificate not accepted: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_TLS_CERT_ALTNAME_INVALID)/);
    expect(requestsSeen).toBe(0);
  });

  it('nothing in the app turns certificate checks off', async () => {
    const hits: string[] = [];
    for (const dir of ['src-main', 'src-renderer', 'bin', 'scripts']) {
      for (const f of await listFiles(path.join(REPO, dir))) {
        if (!/\.(ts|tsx|js|mjs|cjs|sh|json)$/.test(f)) continue;
        const text = await fs.readFile(path.join(REPO, dir, f), 'utf8');
        if (/NODE_TLS_REJECT_UNAUTHORIZED|rejectUnauthorized\s*:\s*false|setCertificateVerifyProc|ignore-certificate-errors|certificate-error/.test(text)) hits.push(`${dir}/${f}`);
      }
    }
    expect(hits).toEqual([]);
    const pkg = await fs.readFile(path.join(REPO, 'package.json'), 'utf8');
    expect(pkg).not.toMatch(/NODE_TLS_REJECT_UNAUTHORIZED/);
  });
});

describe('plain http only on loopback', () => {
  it('refuses http:// to any other host, in the CLI (exit 2) and in validateBaseUrl (used by the IPC connect handler)', async () => {
    for (const url of ['http://example.com/api/v1/partner', 'http://10.0.0.1/api', 'http://localhost.evil.example/api', 'http://127.0.0.1.nip.io/api', 'http://[::ffff:8.8.8.8]/api']) {
      expect(() => validateBaseUrl(url), url).toThrow(BaseUrlError);
    }
    for (const url of ['http://127.0.0.1:9/api', 'http://localhost:9/api', 'http://[::1]:9/api', 'https://example.com/api']) {
      expect(() => validateBaseUrl(url), url).not.toThrow();
    }
    const r = await runCli(['collections', '--base-url', 'http://example.com/api/v1/partner'], { env: { DATASET_SYNC_API_KEY: 'dsk_http_probe' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/https/);
    expect(r.stderr).not.toContain('dsk_http_probe');
  });
});

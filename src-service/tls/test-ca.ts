// A certificate authority made for one test or benchmark run, and a server certificate it
// signed for the loopback names (127.0.0.1, 127.0.0.2, ::1, localhost). Made with the openssl CLI because
// Node's crypto can read X.509 certificates but not issue them. Nothing here is trusted by
// anyone until a test decides to trust the CA (a `ca` option, NODE_EXTRA_CA_CERTS, or the OS store).

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestCertificates {
  /** PEM of the CA certificate (what a client must trust). */
  caCert: string;
  /** Path of the CA certificate file (for NODE_EXTRA_CA_CERTS, update-ca-certificates, curl --cacert). */
  caCertPath: string;
  /** PEM private key and certificate of the server, signed by the CA. */
  key: string;
  cert: string;
  /** Common name of the CA; unique per run so parallel runs never mistake each other's CA. */
  caName: string;
}

/** Creates the CA and the loopback server certificate in `dir` (created if missing; files mode 0600). */
export async function createTestCertificates(dir: string): Promise<TestCertificates> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const file = (name: string) => path.join(dir, name);
  const caName = `Dataset Sync test CA ${randomBytes(6).toString('hex')}`;
  const days = '7';
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

  await openssl(['req', '-x509', ...ecKey, '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', days, '-subj', `/CN=${caName}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  await openssl(['req', '-new', ...ecKey, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost']);
  await fs.writeFile(file('server.ext'), [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature',
    'extendedKeyUsage=serverAuth',
    // 127.0.0.2: tests that need a loopback address a client does not treat as its own machine.
    'subjectAltName=IP:127.0.0.1,IP:127.0.0.2,IP:::1,DNS:localhost',
    '',
  ].join('\n'));
  await openssl(['x509', '-req', '-in', file('server.csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial',
    '-out', file('server.crt'), '-days', days, '-extfile', file('server.ext')]);
  for (const name of ['ca.key', 'server.key']) await fs.chmod(file(name), 0o600);

  const [caCert, key, cert] = await Promise.all(['ca.crt', 'server.key', 'server.crt'].map((n) => fs.readFile(file(n), 'utf8')));
  return { caCert: caCert!, caCertPath: file('ca.crt'), key: key!, cert: cert!, caName };
}

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args, { timeout: 30_000 });
  } catch (e) {
    const err = e as { code?: string; stderr?: string };
    if (err.code === 'ENOENT') throw new Error('the openssl command is needed to make the test certificates and was not found on PATH');
    throw new Error(`openssl ${args[0] ?? ''} failed: ${(err.stderr ?? String(e)).trim()}`);
  }
}

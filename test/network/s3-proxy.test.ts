// The bucket destination on the service client's network rules (README, "Networks"): through
// tinyproxy when the proxy variables say so (its log proves it), past it when NO_PROXY names the
// host, trusting NODE_EXTRA_CA_CERTS for an HTTPS endpoint, directly and through a CONNECT
// tunnel, and through squid's Basic authentication (a wrong password refused in words, never quoted).
// The store is a real Ceph RGW on 127.0.0.1; it is reached through small TCP relays on
// 127.0.0.2 (loopback is never proxied) and a TLS terminator holding a certificate of a test CA.
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as tls from 'node:tls';
import { CreateBucketCommand, GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DestinationError } from '../../src-main/sync/destination/destination';
import { S3Bucket } from '../../src-main/sync/destination/s3/s3-bucket';
import { createTestCertificates, type TestCertificates } from '../../src-service/index';
import { CEPH_MISSING, needsCeph, startCephRgw, type CephRgw, adminClient } from '../support/ceph-rgw';
import { closedLoopbackPort } from '../support/closed-port';
import { findBinary, proxyLogWith, startSquid, startTinyproxy, type RunningProxy } from './support';

const tinyproxyBinary = findBinary('tinyproxy');
const squidBinary = findBinary('squid');
const MiB = 1024 * 1024;
const PROXY_VARIABLES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];

const ctx = {} as { rgw: CephRgw; admin: S3Client; bucket: string; tmp: string; certs: TestCertificates; servers: Server[]; plain: string; secure: string };
let n = 0;

/** Listens on host:0 and hands every connection to `handle`; the server is closed after the file. */
async function listen(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, () => resolve()));
  ctx.servers.push(server);
  return (server.address() as { port: number }).port;
}

/** Bytes both ways between a client socket and the RGW. */
function relayToRgw(socket: Socket): void {
  const upstream = connect(Number(new URL(ctx.rgw.endpoint).port), '127.0.0.1');
  socket.pipe(upstream).pipe(socket);
  socket.on('error', () => upstream.destroy());
  upstream.on('error', () => socket.destroy());
}

function bucketDest(endpoint: string): { dest: S3Bucket; prefix: string } {
  const prefix = `p${++n}-${randomBytes(3).toString('hex')}/data`;
  const dest = new S3Bucket(
    { kind: 'bucket', bucket: ctx.bucket, prefix, endpoint, region: 'us-east-1', forcePathStyle: true },
    {
      credentials: { accessKeyId: ctx.rgw.accessKeyId, secretAccessKey: ctx.rgw.secretAccessKey },
      stateDir: path.join(ctx.tmp, `state-${n}`),
      partSize: 5 * MiB,
    },
  );
  return { dest, prefix };
}

/** prepare, a one-PUT write, a multipart write (streamed parts) and a read back. */
async function roundTrip(endpoint: string): Promise<void> {
  const { dest, prefix } = bucketDest(endpoint);
  try {
    await dest.prepare();
    await dest.writeAtomic('manifest.json', '{"ok":true}');
    expect(await dest.readText('manifest.json')).toBe('{"ok":true}');
    const big = randomBytes(11 * MiB);
    await dest.writeAtomic(
      'big.bin',
      (async function* () {
        for (let i = 0; i < big.length; i += MiB) yield big.subarray(i, i + MiB);
      })(),
    );
    const head = await ctx.admin.send(new HeadObjectCommand({ Bucket: ctx.bucket, Key: `${prefix}/big.bin` }));
    expect(head.ContentLength).toBe(big.length);
    expect(head.ETag).toMatch(/-3"$/);
    const got = await ctx.admin.send(new GetObjectCommand({ Bucket: ctx.bucket, Key: `${prefix}/big.bin` }));
    const bytes = Buffer.from(await got.Body!.transformToByteArray());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(createHash('sha256').update(big).digest('hex'));
  } finally {
    await dest.close();
  }
}

function setProxyEnv(values: Record<string, string>): void {
  for (const name of PROXY_VARIABLES) delete process.env[name];
  Object.assign(process.env, values);
}

const skipReason = CEPH_MISSING !== null ? needsCeph('') : !tinyproxyBinary ? ' (skipped: tinyproxy is not installed; apt-get install tinyproxy)' : '';

describe.skipIf(skipReason !== '')(`S3 bucket destination through the environment's proxy${skipReason}`, () => {
  const saved = Object.fromEntries([...PROXY_VARIABLES, 'NODE_EXTRA_CA_CERTS'].map((name) => [name, process.env[name]]));
  let proxy: RunningProxy;

  beforeAll(async () => {
    ctx.servers = [];
    ctx.tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-s3proxy-'));
    ctx.certs = await createTestCertificates(path.join(ctx.tmp, 'pki'));
    // Read by the CA helper at its first use in this process (the dispatcher's trustedCertificates).
    process.env.NODE_EXTRA_CA_CERTS = ctx.certs.caCertPath;
    ctx.rgw = await startCephRgw();
    ctx.admin = adminClient(ctx.rgw);
    ctx.bucket = 'dataset-sync-proxy-test';
    await ctx.admin.send(new CreateBucketCommand({ Bucket: ctx.bucket }));
    ctx.plain = `http://127.0.0.2:${await listen(createServer(relayToRgw), '127.0.0.2')}`;
    ctx.secure = `https://127.0.0.2:${await listen(tls.createServer({ key: ctx.certs.key, cert: ctx.certs.cert }, relayToRgw), '127.0.0.2')}`;
    proxy = await startTinyproxy(tinyproxyBinary!);
  }, 180_000);

  afterEach(() => setProxyEnv({}));

  afterAll(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    ctx.admin?.destroy();
    await proxy?.stop();
    for (const server of ctx.servers ?? []) server.close();
    await ctx.rgw?.stop();
    if (ctx.tmp) await fs.rm(ctx.tmp, { recursive: true, force: true });
  }, 60_000);

  it('sends plain-HTTP requests to the proxy named by HTTP_PROXY', async () => {
    setProxyEnv({ HTTP_PROXY: proxy.url });
    const before = (await proxy.log()).split(ctx.plain).length;
    await roundTrip(ctx.plain);
    const log = await proxy.log();
    expect(log).toContain(`PUT ${ctx.plain}/${ctx.bucket}/`);
    expect(log).toContain(`GET ${ctx.plain}/${ctx.bucket}/`);
    expect(log.split(ctx.plain).length - before).toBeGreaterThanOrEqual(6);
  }, 120_000);

  it('tunnels HTTPS through HTTPS_PROXY, trusting NODE_EXTRA_CA_CERTS at the end of the tunnel', async () => {
    setProxyEnv({ https_proxy: proxy.url });
    await roundTrip(ctx.secure);
    expect(await proxy.log()).toContain(`CONNECT ${new URL(ctx.secure).host} HTTP/1.1`);
  }, 120_000);

  it('goes direct for a host NO_PROXY names (the proxy address has nothing listening)', async () => {
    const dead = `http://127.0.0.1:${await closedLoopbackPort()}`;
    setProxyEnv({ HTTP_PROXY: dead, HTTPS_PROXY: dead, NO_PROXY: 'example.org,127.0.0.2' });
    await roundTrip(ctx.plain);
    await roundTrip(ctx.secure);
    // The same dead proxy without the NO_PROXY entry: the bucket is unreachable, so the
    // requests above did not go to it.
    setProxyEnv({ HTTP_PROXY: dead, NO_PROXY: 'example.org' });
    const { dest } = bucketDest(ctx.plain);
    await expect(dest.prepare()).rejects.toThrow(/127\.0\.0\.2/);
    await dest.close();
  }, 180_000);

  it('never sends the loopback 127.0.0.1 to a proxy', async () => {
    const dead = `http://127.0.0.1:${await closedLoopbackPort()}`;
    setProxyEnv({ HTTP_PROXY: dead });
    await roundTrip(ctx.rgw.endpoint);
  }, 120_000);

  it('trusts NODE_EXTRA_CA_CERTS for an HTTPS endpoint without a proxy (the SDK handler)', async () => {
    await roundTrip(ctx.secure);
  }, 120_000);

  describe.skipIf(!squidBinary)(`through squid with Basic authentication${squidBinary ? '' : ' (skipped: squid is not installed; apt-get install squid)'}`, () => {
    const password = 'pr0xy-s3cret-word';
    let squid: RunningProxy;
    const urlWith = (pw: string) => squid.url.replace('http://', `http://tester:${encodeURIComponent(pw)}@`);
    beforeAll(async () => {
      squid = await startSquid(squidBinary!, 'tester', password);
    }, 60_000);
    afterAll(async () => {
      await squid?.stop();
    });

    it('carries the credentials of the proxy URL, forwarding HTTP and tunnelling HTTPS', async () => {
      setProxyEnv({ HTTP_PROXY: urlWith(password), HTTPS_PROXY: urlWith(password) });
      await roundTrip(ctx.plain);
      await roundTrip(ctx.secure);
      const log = await proxyLogWith(squid, `CONNECT ${new URL(ctx.secure).host}`);
      expect(log).toContain(`PUT ${ctx.plain}/${ctx.bucket}/`);
      expect(log).toContain(`CONNECT ${new URL(ctx.secure).host}`);
    }, 120_000);

    it('says the proxy refused a wrong password, in words and without the password', async () => {
      for (const endpoint of [ctx.plain, ctx.secure]) {
        setProxyEnv({ HTTP_PROXY: urlWith('wrong-pw-123'), HTTPS_PROXY: urlWith('wrong-pw-123') });
        const { dest } = bucketDest(endpoint);
        const error = await dest.prepare().then(
          () => null,
          (e: unknown) => e as DestinationError,
        );
        await dest.close();
        expect(error).toBeInstanceOf(DestinationError);
        expect(error!.message).toBe(
          `Could not open s3://${ctx.bucket}/${dest.spec.prefix} at ${endpoint}: The proxy ${new URL(squid.url).host} refused the request with HTTP 407 (Proxy Authentication Required: check the user name and password in the proxy URL).`,
        );
        expect(error!.message).not.toContain('wrong-pw-123');
        expect(error!.stack).not.toContain('wrong-pw-123');
      }
    }, 120_000);
  });
});

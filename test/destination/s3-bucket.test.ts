// The bucket destination against a real Ceph RGW on loopback (test/support/ceph-rgw.ts): the
// destination contract, then what only a bucket has — errors in words, multipart resume across
// a gateway that dies, no upload left open, and the store's own integrity features measured.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DestinationError, type ExpectedBody } from '../../src-main/sync/destination/destination';
import { bucketBackend } from '../../src-main/sync/destination/s3/backend';
import { S3Bucket } from '../../src-main/sync/destination/s3/s3-bucket';
import { startReferenceService } from '../../src-service/index';
import { CEPH_MISSING, needsCeph, startCephRgw, type CephRgw, adminClient } from '../support/ceph-rgw';
import { closedLoopbackPort } from '../support/closed-port';
import { bodyOf, destinationContract, readAll, sha256 } from './contract';

const MiB = 1024 * 1024;
/** RGW's smallest part (every part but the last): the tests' bodies stay small. */
const PART = 5 * MiB;

const ctx = {} as { rgw: CephRgw; admin: S3Client; bucket: string; tmp: string };
let n = 0;

function bucketDest(prefix: string, opts: { endpoint?: string; bucket?: string; keys?: { accessKeyId: string; secretAccessKey: string }; stateDir?: string } = {}): S3Bucket {
  return new S3Bucket(
    { kind: 'bucket', bucket: opts.bucket ?? ctx.bucket, prefix, endpoint: opts.endpoint ?? ctx.rgw.endpoint, region: 'us-east-1', forcePathStyle: true },
    {
      credentials: opts.keys ?? { accessKeyId: ctx.rgw.accessKeyId, secretAccessKey: ctx.rgw.secretAccessKey },
      stateDir: opts.stateDir ?? path.join(ctx.tmp, `state-${prefix.replace(/\W/g, '_')}`),
      partSize: PART,
    },
  );
}

function freshPrefix(): string {
  return `t${++n}-${randomBytes(3).toString('hex')}/data`;
}

describe.skipIf(CEPH_MISSING !== null)(needsCeph('S3 bucket destination on a real Ceph RGW'), () => {
  beforeAll(async () => {
    const rgw = await startCephRgw();
    // Reported in the test log: the fixture's cost (issue 20 quotes ~14 s and ~130 MB).
    console.log(`Ceph RGW ready in ${(rgw.startMs / 1000).toFixed(1)} s, ${(rgw.memoryBytes() / 1e6).toFixed(0)} MB resident`);
    const admin = adminClient(rgw);
    const bucket = 'dataset-sync-test';
    await admin.send(new CreateBucketCommand({ Bucket: bucket }));
    Object.assign(ctx, { rgw, admin, bucket, tmp: await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-s3-')) });
  }, 180_000);
  afterAll(async () => {
    ctx.admin?.destroy();
    await ctx.rgw?.stop();
    if (ctx.tmp) await fs.rm(ctx.tmp, { recursive: true, force: true });
  }, 60_000);

  destinationContract(
    'S3 bucket (Ceph RGW)',
    async () => {
      const prefix = freshPrefix();
      const dest = bucketDest(prefix);
      const sibling = bucketDest(`${prefix}.withdrawn`);
      return { dest, sibling, cleanup: async () => Promise.all([dest.close(), sibling.close()]).then(() => undefined) };
    },
    { bigSize: 2 * PART + 123_457, capabilities: bucketBackend.capabilities },
  );

  async function openUploads(prefix: string): Promise<string[]> {
    const res = await ctx.admin.send(new ListMultipartUploadsCommand({ Bucket: ctx.bucket, Prefix: `${prefix}/` }));
    return (res.Uploads ?? []).map((u) => u.Key!);
  }

  function expectation(body: Buffer, key: string): ExpectedBody {
    return { size: body.length, sha256: sha256(body), resumeKey: `${key.replace(/\W/g, '-')}-${sha256(body)}` };
  }

  describe('errors name the endpoint and the bucket, never the secret', () => {
    async function prepareError(dest: S3Bucket): Promise<DestinationError> {
      const e = await dest.prepare().then(
        () => null,
        (err: unknown) => err,
      );
      await dest.close();
      expect(e).toBeInstanceOf(DestinationError);
      return e as DestinationError;
    }

    it('a wrong secret key and an unknown access key id are refused credentials (config)', async () => {
      const badSecret = randomBytes(20).toString('base64url');
      const e1 = await prepareError(bucketDest(freshPrefix(), { keys: { accessKeyId: ctx.rgw.accessKeyId, secretAccessKey: badSecret } }));
      expect(e1.kind).toBe('config');
      expect(e1.message).toContain(ctx.rgw.endpoint);
      expect(e1.message).toContain(ctx.bucket);
      expect(e1.message).toMatch(/refused the credentials \(SignatureDoesNotMatch\)/);
      expect(e1.message).not.toContain(badSecret);
      const e2 = await prepareError(bucketDest(freshPrefix(), { keys: { accessKeyId: 'NOSUCHKEY0000000', secretAccessKey: badSecret } }));
      expect(e2.kind).toBe('config');
      expect(e2.message).toMatch(/refused the credentials \(InvalidAccessKeyId\)/);
      expect(e2.message).not.toContain(badSecret);
    });

    it('a missing bucket is named (config)', async () => {
      const e = await prepareError(bucketDest(freshPrefix(), { bucket: 'no-such-bucket-here' }));
      expect(e.kind).toBe('config');
      expect(e.message).toMatch(/^Could not open s3:\/\/no-such-bucket-here\/.*: the bucket no-such-bucket-here does not exist at /);
      expect(e.message).toContain(ctx.rgw.endpoint);
    });

    it('a user without access to the bucket gets "no permission" (config)', async () => {
      const other = await ctx.rgw.addUser(`other-${randomBytes(3).toString('hex')}`);
      const e = await prepareError(bucketDest(freshPrefix(), { keys: other }));
      expect(e.kind).toBe('config');
      expect(e.message).toMatch(/no permission at the S3 endpoint .* bucket dataset-sync-test \(AccessDenied\)/);
      expect(e.message).not.toContain(other.secretAccessKey);
    });

    it('an endpoint that is not S3 (the reference service) and a closed port are told apart', async () => {
      const root = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-svc-'));
      const svc = await startReferenceService({ dataDir: path.join(root, 'service'), seed: 1, sets: 1, fileSize: 1024, slots: 1 });
      try {
        const origin = new URL(svc.deliveryBaseUrl).origin;
        const e = await prepareError(bucketDest(freshPrefix(), { endpoint: origin }));
        expect(e.kind).toBe('config');
        expect(e.message).toMatch(new RegExp(`${origin.replace(/[.:/]/g, '\\$&')} does not answer like an S3 store`));
      } finally {
        await svc.close();
        await fs.rm(root, { recursive: true, force: true });
      }
      const closed = `http://127.0.0.1:${await closedLoopbackPort()}`;
      const e = await prepareError(bucketDest(freshPrefix(), { endpoint: closed }));
      expect(e.kind).toBe('unreachable');
      expect(e.message).toContain(`${closed}, bucket ${ctx.bucket} could not be reached`);
    });
  });

  describe('the store: what Ceph RGW checks (the design relies on these measurements)', () => {
    const md5 = (b: Buffer | string) => createHash('md5').update(b).digest('base64');
    it('Content-MD5 is checked (BadDigest); x-amz-checksum-sha256 is not (a wrong one is stored): checksSha256 is false', async () => {
      const key = `${freshPrefix()}/probe`;
      const e = await ctx.admin.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: key, Body: 'hello', ContentMD5: md5('other') })).catch((err: unknown) => err);
      expect((e as { name?: string }).name).toBe('BadDigest');
      const wrongSha = createHash('sha256').update('other').digest('base64');
      await ctx.admin.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: key, Body: 'hello', ChecksumSHA256: wrongSha }));
      const got = await ctx.admin.send(new GetObjectCommand({ Bucket: ctx.bucket, Key: key }));
      expect(await got.Body!.transformToString()).toBe('hello');
      expect(bucketDest(freshPrefix()).capabilities.checksSha256).toBe(false);
    });

    it('a conditional PUT If-None-Match: * is refused when the object exists (the lock relies on it)', async () => {
      const key = `${freshPrefix()}/once`;
      await ctx.admin.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: key, Body: 'a', IfNoneMatch: '*' }));
      const e = await ctx.admin.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: key, Body: 'b', IfNoneMatch: '*' })).catch((err: unknown) => err);
      expect((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode).toBe(412);
    });
  });

  it('objects carry user metadata sha256; a small body is one PUT, a large one a multipart upload, none left open', async () => {
    const prefix = freshPrefix();
    const dest = bucketDest(prefix);
    await dest.prepare();
    for (const size of [1000, 2 * PART + 5]) {
      const body = bodyOf(size, size);
      const key = `sets/1/set_1_slot_0${size > PART ? 2 : 1}.mp4`;
      const up = await dest.openUpload(key, expectation(body, key));
      await up.write([body], 0);
      await up.commit();
      const head = await ctx.admin.send(new HeadObjectCommand({ Bucket: ctx.bucket, Key: `${prefix}/${key}` }));
      expect(head.Metadata?.sha256).toBe(sha256(body));
      // A multipart object's ETag says how many parts it was made of.
      expect(head.ETag).toMatch(size > PART ? /-3"$/ : /^"[0-9a-f]{32}"$/);
    }
    expect(await openUploads(prefix)).toEqual([]);
    await dest.close();
  });

  it('a committed upload leaves nothing staged on this machine; cleanUp removes the uploads/verified/ folder older versions left', async () => {
    const prefix = freshPrefix();
    const stateDir = path.join(ctx.tmp, `staged-${randomBytes(3).toString('hex')}`);
    const dest = bucketDest(prefix, { stateDir });
    await dest.prepare();
    const uploads = path.join(stateDir, 'uploads');
    for (const size of [1000, 2 * PART + 5]) {
      const body = bodyOf(size, size + 1);
      const key = `sets/1/set_1_slot_0${size > PART ? 2 : 1}.mp4`;
      const up = await dest.openUpload(key, expectation(body, key));
      await up.write([body], 0);
      const info = await up.commit();
      await up.close();
      expect(info.sha256).toBe(sha256(body));
      // Neither the staged bytes nor their resume record stay: a new upload of the same body starts at 0.
      expect(await fs.readdir(uploads)).toEqual([]);
      const again = await dest.openUpload(key, expectation(body, key));
      expect(again.held).toBe(0);
      await again.discard();
      expect(await fs.readdir(uploads)).toEqual([]);
    }
    // What a sync of an older version, killed before its media check ended, left behind.
    await fs.mkdir(path.join(uploads, 'verified'));
    await fs.writeFile(path.join(uploads, 'verified', 'set_1_slot_01-0a1b2c3d'), bodyOf(1000, 1001));
    await dest.cleanUp();
    expect(await fs.readdir(uploads)).toEqual([]);
    expect(await openUploads(prefix)).toEqual([]);
    await dest.close();
  });

  it('discard aborts the multipart upload; cleanUp aborts the ones no local record holds and keeps the resumable ones', async () => {
    const prefix = freshPrefix();
    const dest = bucketDest(prefix);
    await dest.prepare();
    const body = bodyOf(3 * PART, 21);
    const gone = await dest.openUpload('sets/1/a.mp4', expectation(body, 'sets/1/a.mp4'));
    await gone.write([body.subarray(0, 2 * PART)], 0);
    await gone.close();
    const reopened = await dest.openUpload('sets/1/a.mp4', expectation(body, 'sets/1/a.mp4'));
    expect(await openUploads(prefix)).toEqual([`${prefix}/sets/1/a.mp4`]);
    await reopened.discard();
    expect(await openUploads(prefix)).toEqual([]);

    // One held for resume (its record is local), one left by a sync whose records are lost,
    // and one of the consents prefix beside this one (not this destination's).
    const held = await dest.openUpload('sets/2/b.mp4', expectation(body, 'sets/2/b.mp4'));
    await held.write([body.subarray(0, 2 * PART)], 0);
    await held.close();
    await ctx.admin.send(new CreateMultipartUploadCommand({ Bucket: ctx.bucket, Key: `${prefix}/sets/3/orphan.mp4` }));
    await ctx.admin.send(new CreateMultipartUploadCommand({ Bucket: ctx.bucket, Key: `${prefix}.consents/1/x.json` }));
    await dest.cleanUp();
    expect(await openUploads(prefix)).toEqual([`${prefix}/sets/2/b.mp4`]);
    expect(await openUploads(`${prefix}.consents`)).toEqual([`${prefix}.consents/1/x.json`]);
    await (await dest.openUpload('sets/2/b.mp4', expectation(body, 'sets/2/b.mp4'))).discard();
    expect(await openUploads(prefix)).toEqual([]);
    await dest.close();
  });

  it('checkPresence finds an object whose bytes were replaced behind our back (same size, new ETag)', async () => {
    const prefix = freshPrefix();
    const dest = bucketDest(prefix);
    await dest.prepare();
    const body = bodyOf(4096, 31);
    const up = await dest.openUpload('sets/4/set_4_slot_01.mp4', expectation(body, 'sets/4/set_4_slot_01.mp4'));
    await up.write([body], 0);
    const info = await up.commit();
    for await (const p of dest.checkPresence([{ key: info.key, size: info.size, stamp: info.stamp }])) expect.fail(`unexpected ${p.problem}`);
    await ctx.admin.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: `${prefix}/sets/4/set_4_slot_01.mp4`, Body: bodyOf(4096, 32) }));
    const problems = [];
    for await (const p of dest.checkPresence([{ key: info.key, size: info.size, stamp: info.stamp }])) problems.push(p);
    expect(problems).toEqual([expect.objectContaining({ key: 'sets/4/set_4_slot_01.mp4', problem: 'changed' })]);
    // verifiedCopy trusts metadata sha256, which a foreign PUT does not carry.
    expect(await dest.verifiedCopy('sets/4/set_4_slot_01.mp4', { size: 4096, sha256: sha256(body) })).toBeNull();
    await ctx.admin.send(new DeleteObjectCommand({ Bucket: ctx.bucket, Key: `${prefix}/sets/4/set_4_slot_01.mp4` }));
    await dest.close();
  });

  it('a gateway killed mid-multipart: a fresh instance resumes from the parts stored, sending only what the store lacks', async () => {
    const proxy = await countingProxy(new URL(ctx.rgw.endpoint).port);
    try {
      const prefix = freshPrefix();
      const stateDir = path.join(ctx.tmp, `resume-${randomBytes(3).toString('hex')}`);
      const key = 'sets/9/set_9_slot_01.mp4';
      const body = bodyOf(4 * PART + 777, 41);
      const exp = expectation(body, key);
      const first = bucketDest(prefix, { endpoint: proxy.endpoint, stateDir });
      await first.prepare();
      const up = await first.openUpload(key, exp);
      await up.write([body.subarray(0, 2 * PART)], 0);
      await up.close(); // waits for the two parts in flight
      await ctx.rgw.stopGateway();
      const reopened = await first.openUpload(key, exp).catch((e: unknown) => e);
      // Without the gateway, the parts cannot be listed: the store is unreachable.
      expect(reopened).toBeInstanceOf(DestinationError);
      expect((reopened as DestinationError).kind).toBe('unreachable');
      await first.close();
      await ctx.rgw.startGateway();

      const sentBefore = proxy.sent();
      const second = bucketDest(prefix, { endpoint: proxy.endpoint, stateDir });
      const resumed = await second.openUpload(key, exp);
      expect(resumed.held).toBe(2 * PART);
      expect((await readAll(resumed.readHeld())).equals(body.subarray(0, 2 * PART))).toBe(true);
      await resumed.write([body.subarray(2 * PART)], 2 * PART);
      await resumed.commit();
      const resent = proxy.sent() - sentBefore;
      // The 2 parts stored are not sent again: what went up is the rest plus request overhead.
      expect(resent).toBeGreaterThanOrEqual(body.length - 2 * PART);
      expect(resent).toBeLessThan(body.length - 2 * PART + 256 * 1024);
      expect((await readAll(second.read(key))).equals(body)).toBe(true);
      expect(await openUploads(prefix)).toEqual([]);
      await second.close();
    } finally {
      await proxy.close();
    }
  }, 120_000);

  it('close() does not wait for a store that stopped answering: the part cut short is sent again on resume', async () => {
    const proxy = await countingProxy(new URL(ctx.rgw.endpoint).port);
    const prefix = freshPrefix();
    const stateDir = path.join(ctx.tmp, `hang-${randomBytes(3).toString('hex')}`);
    const key = 'sets/3/set_3_slot_01.mp4';
    const body = bodyOf(2 * PART + 99, 51);
    const exp = expectation(body, key);
    try {
      const first = bucketDest(prefix, { endpoint: proxy.endpoint, stateDir });
      await first.prepare();
      const up = await first.openUpload(key, exp);
      await up.write([body.subarray(0, 10)], 0); // nothing sent yet: no full part
      proxy.blackHole();
      await up.write([body.subarray(10, PART + 10)], 10); // part 1 goes out and never gets an answer
      await up.close();
      await first.close();
    } finally {
      await proxy.close();
    }
    const second = bucketDest(prefix, { stateDir });
    const resumed = await second.openUpload(key, exp);
    expect(resumed.held).toBe(PART + 10);
    await resumed.write([body.subarray(PART + 10)], PART + 10);
    await resumed.commit();
    expect((await readAll(second.read(key))).equals(body)).toBe(true);
    expect(await openUploads(prefix)).toEqual([]);
    await second.close();
  }, 90_000);

  it('lock: the lock object holds host and pid; release removes it only while it is ours', async () => {
    const prefix = freshPrefix();
    const dest = bucketDest(prefix);
    await dest.prepare();
    const lock = await dest.lock();
    const text = await dest.readText('.dataset-sync/lock');
    expect(JSON.parse(text!)).toMatchObject({ host: os.hostname(), pid: process.pid });
    // Someone replaced it (a takeover after it went stale): our release leaves theirs.
    await ctx.admin.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: `${prefix}/.dataset-sync/lock`, Body: '{"host":"elsewhere","pid":1}' }));
    await lock.release();
    expect(await dest.readText('.dataset-sync/lock')).toBe('{"host":"elsewhere","pid":1}');
    const e = await dest.lock().catch((err: unknown) => err);
    expect((e as DestinationError).kind).toBe('locked');
    expect((e as DestinationError).message).toMatch(/pid 1 on host elsewhere/);

    // A lock of this host whose process is gone (a sync killed with SIGKILL) is taken over at once.
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.on('exit', resolve));
    const left = JSON.stringify({ host: os.hostname(), pid: dead.pid, startedAt: new Date().toISOString(), nonce: 'gone' });
    await ctx.admin.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: `${prefix}/.dataset-sync/lock`, Body: left }));
    const taken = await dest.lock();
    expect(JSON.parse((await dest.readText('.dataset-sync/lock'))!)).toMatchObject({ pid: process.pid });
    await taken.release();
    expect(await dest.stat('.dataset-sync/lock')).toBeNull();
    await dest.close();
  });

  it('lock: refreshed while held (Last-Modified moves); a refresh that finds the lock taken over says so', async () => {
    const prefix = freshPrefix();
    const lost: string[] = [];
    const dest = new S3Bucket(
      { kind: 'bucket', bucket: ctx.bucket, prefix, endpoint: ctx.rgw.endpoint, forcePathStyle: true },
      {
        credentials: { accessKeyId: ctx.rgw.accessKeyId, secretAccessKey: ctx.rgw.secretAccessKey },
        stateDir: path.join(ctx.tmp, `lock-${prefix.replace(/\W/g, '_')}`),
        lockRefreshMs: 300,
        onLockLost: (m) => lost.push(m),
      },
    );
    await dest.prepare();
    const lock = await dest.lock();
    const lockKey = `${prefix}/.dataset-sync/lock`;
    const before = (await ctx.admin.send(new HeadObjectCommand({ Bucket: ctx.bucket, Key: lockKey }))).LastModified!.getTime();
    await until('the lock to be refreshed', async () => (await ctx.admin.send(new HeadObjectCommand({ Bucket: ctx.bucket, Key: lockKey }))).LastModified!.getTime() > before);
    expect(lost).toEqual([]);
    await ctx.admin.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: lockKey, Body: '{"host":"elsewhere","pid":2}' }));
    await until('the loss to be reported', async () => lost.length > 0);
    expect(lost[0]).toMatch(/was taken over by another sync/);
    await lock.release();
    expect(await dest.readText('.dataset-sync/lock')).toBe('{"host":"elsewhere","pid":2}');
    await dest.close();
  });
});

async function until(what: string, predicate: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A loopback TCP relay to `port` counting the bytes clients send through it. */
async function countingProxy(port: string): Promise<{ endpoint: string; sent(): number; blackHole(): void; close(): Promise<void> }> {
  let sent = 0;
  let swallow = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (d: Buffer) => {
      sent += d.length;
      if (!swallow) upstream.write(d);
    });
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    sent: () => sent,
    /** From now on, what clients send goes nowhere and nothing is answered (a store that hangs). */
    blackHole: () => {
      swallow = true;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

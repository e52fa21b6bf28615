// The CLI syncs, verifies and repairs a collection straight into a real Ceph RGW bucket (issue
// 20): the reference service over real HTTP, the RGW of test/support/ceph-rgw.ts, our CLI as a
// child process with the AWS SDK's default credential chain (environment variables), and
// rclone as an independent S3 client that checks what landed (`sha256sum -c` on its copy).
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CreateBucketCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncEvent, SyncSummary, VerifyReport } from '../../src-shared/sync-events';
import { CEPH_MISSING, needsCeph, startCephRgw, type CephRgw, adminClient, keysUnder as keysIn } from '../support/ceph-rgw';
import { closedLoopbackPort } from '../support/closed-port';
import { mainCollection, parseNdjson, runCli, servedSets, useService } from '../engine/helpers';
import { LEFT_ACCEPTED_STATUSES } from '../../src-main/sync/withdraw';
import { servedPage } from '../engine/pages';

const run = promisify(execFile);
const env = useService({ sets: 4, slots: 2, fileSize: 48 * 1024, seed: 2020 });
const BUCKET = 'cli-sync';
const ctx = {} as { rgw: CephRgw; admin: S3Client; tmp: string };
let n = 0;

function freshPrefix(): string {
  return `c${++n}/faces`;
}

/** The CLI's environment: the demo key, the RGW's keys through the SDK's default chain, a private state home (one per "machine"). */
function cliEnv(machine = 'a', keys?: { accessKeyId: string; secretAccessKey: string }): Record<string, string> {
  return {
    DATASET_SYNC_API_KEY: mainCollection(env.svc).apiKey,
    AWS_ACCESS_KEY_ID: keys?.accessKeyId ?? ctx.rgw.accessKeyId,
    AWS_SECRET_ACCESS_KEY: keys?.secretAccessKey ?? ctx.rgw.secretAccessKey,
    AWS_REGION: 'us-east-1',
    XDG_STATE_HOME: path.join(ctx.tmp, `state-${machine}`),
  };
}

async function syncInto(dest: string, opts: { machine?: string; extra?: string[]; keys?: { accessKeyId: string; secretAccessKey: string }; endpoint?: string } = {}) {
  const { collectionId } = mainCollection(env.svc);
  const r = await runCli(
    ['sync', '--base-url', env.svc.deliveryBaseUrl, '--collection', String(collectionId), '--dest', dest, '--s3-endpoint', opts.endpoint ?? ctx.rgw.endpoint, '--json', ...(opts.extra ?? [])],
    { env: cliEnv(opts.machine, opts.keys), timeoutMs: 90_000 },
  );
  const events = r.stdout.trim() ? parseNdjson(r.stdout) : [];
  const summary = events.find((e): e is Extract<SyncEvent, { type: 'summary' }> => e.type === 'summary')?.summary as SyncSummary | undefined;
  return { ...r, events, summary };
}

/** rclone, the independent S3 client: its remote `rgw:` by environment variables (AWS_CA_BUNDLE would make it refuse http). */
async function rclone(args: string[]): Promise<string> {
  const e: NodeJS.ProcessEnv = {
    ...process.env,
    RCLONE_CONFIG_RGW_TYPE: 's3',
    RCLONE_CONFIG_RGW_PROVIDER: 'Ceph',
    RCLONE_CONFIG_RGW_ENDPOINT: ctx.rgw.endpoint,
    RCLONE_CONFIG_RGW_ACCESS_KEY_ID: ctx.rgw.accessKeyId,
    RCLONE_CONFIG_RGW_SECRET_ACCESS_KEY: ctx.rgw.secretAccessKey,
    RCLONE_CONFIG_RGW_FORCE_PATH_STYLE: 'true',
  };
  delete e.AWS_CA_BUNDLE;
  return (await run('rclone', args, { env: e, maxBuffer: 64 * 1024 * 1024 })).stdout;
}

function keysUnder(prefix: string): Promise<string[]> {
  return keysIn(ctx.admin, BUCKET, prefix);
}

/** Copies the prefix out with rclone and runs `sha256sum -c SHA256SUMS` on the copy: what a user of the bucket would check. */
async function checkedCopy(prefix: string): Promise<{ files: string[]; manifest: string }> {
  const local = await fs.mkdtemp(path.join(ctx.tmp, 'copy-'));
  await rclone(['copy', `rgw:${BUCKET}/${prefix}`, local]);
  const { stdout } = await run('sha256sum', ['-c', '--strict', 'SHA256SUMS'], { cwd: local });
  const sums = await fs.readFile(path.join(local, 'SHA256SUMS'), 'utf8');
  const manifest = await fs.readFile(path.join(local, 'manifest.csv'), 'utf8');
  expect(stdout.trim().split('\n').every((l) => l.endsWith(': OK'))).toBe(true);
  return { files: sums.trim().split('\n').map((l) => l.slice(66)), manifest };
}

describe.skipIf(CEPH_MISSING !== null)(needsCeph('the CLI syncs into a real Ceph RGW bucket'), () => {
  beforeAll(async () => {
    const rgw = await startCephRgw();
    const admin = adminClient(rgw);
    await admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
    Object.assign(ctx, { rgw, admin, tmp: await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-cli-s3-')) });
  }, 180_000);
  afterAll(async () => {
    ctx.admin?.destroy();
    await ctx.rgw?.stop();
    if (ctx.tmp) await fs.rm(ctx.tmp, { recursive: true, force: true });
  }, 60_000);

  it('syncs every accepted set into s3://BUCKET/PREFIX: verified objects with sha256 metadata, consents beside the prefix, a no-op that moves nothing', { timeout: 180_000 }, async () => {
    const prefix = freshPrefix();
    const dest = `s3://${BUCKET}/${prefix}`;
    const first = await syncInto(dest);
    expect(first.code, first.stderr).toBe(0);
    const sets = await servedSets(env.svc, mainCollection(env.svc).collectionId);
    const expected = sets.flatMap((s) => s.files.map((f) => ({ key: `sets/${s.id}/${f.filename}`, sha256: f.sha256 })));
    expect(first.summary?.filesDownloaded).toBe(expected.length);

    // Every media object carries its SHA-256 as user metadata; the layout is the folder's.
    for (const f of expected) {
      const head = await ctx.admin.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${prefix}/${f.key}` }));
      expect(head.Metadata?.sha256).toBe(f.sha256);
    }
    const keys = await keysUnder(`${prefix}/`);
    for (const k of ['collection.json', 'manifest.csv', 'SHA256SUMS', 'participants.csv', 'croissant.json']) expect(keys).toContain(`${prefix}/${k}`);
    expect(first.summary?.consentMissingSets).toBe((await servedPage(env.svc)).sets.filter((s) => (s.participants as Array<{ consent: unknown }>).some((p) => p.consent === null)).length);
    // An independent client's copy passes sha256sum -c and lists exactly the served files.
    const copy = await checkedCopy(prefix);
    expect(copy.files.sort()).toEqual(expected.map((f) => f.key).sort());

    // Consents (real names) went beside the prefix, never under it.
    const consentRefs = sets.flatMap((s) => s.consent_ids);
    const consentKeys = await keysUnder(`${prefix}.consents/`);
    expect(consentKeys.sort()).toEqual(consentRefs.map((id) => `${prefix}.consents/${id}.json`).sort());
    expect(keys.some((k) => /consent/i.test(k.slice(prefix.length)))).toBe(false);
    for (const k of keys) {
      const body = await rclone(['cat', `rgw:${BUCKET}/${k}`]).catch(() => '');
      if (k.endsWith('.json')) expect(body).not.toContain('signer_name');
    }

    // No multipart upload stays open after a sync that exits 0.
    expect(await rclone(['backend', 'list-multipart-uploads', `rgw:${BUCKET}`]).then((o) => o.includes(prefix))).toBe(false);

    // The no-op: no file bytes either way, nothing hashed, two service requests, a few LISTs.
    const again = await syncInto(dest);
    expect(again.code, again.stderr).toBe(0);
    expect(again.summary).toMatchObject({ filesDownloaded: 0, bytesDownloaded: 0, bytesHashed: 0 });
    expect(again.summary?.diskCheck).toMatchObject({ files: expected.length, missing: 0, changed: 0 });
    expect(again.summary?.requests).toBeLessThanOrEqual(2 + LEFT_ACCEPTED_STATUSES.length); // + the left-accepted scan (withdraw.ts)
    expect(again.summary?.storage?.listRequests).toBeGreaterThan(0);
    expect(again.summary?.storage?.listRequests).toBeLessThanOrEqual(3);
    // What moves to and from the store is metadata only: the head read, the lock object written and removed.
    expect(again.summary?.storage?.bytesDownloaded).toBeLessThan(16 * 1024);
    expect(again.summary?.storage?.bytesUploaded).toBeLessThan(4 * 1024);
  });

  it('heals an object deleted or replaced behind its back, and verify --repair restores what verify found', { timeout: 180_000 }, async () => {
    const prefix = freshPrefix();
    const dest = `s3://${BUCKET}/${prefix}`;
    expect((await syncInto(dest)).code).toBe(0);
    const [gone, swapped] = (await checkedCopy(prefix)).files;
    await rclone(['deletefile', `rgw:${BUCKET}/${prefix}/${gone}`]);
    await ctx.admin.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${prefix}/${swapped}`, Body: Buffer.from('not the video') }));

    // A plain sync sees both (LIST: size and ETag) and fetches them again.
    const healed = await syncInto(dest);
    expect(healed.code, healed.stderr).toBe(0);
    expect(healed.summary?.diskCheck).toMatchObject({ missing: 1, changed: 1 });
    expect(healed.summary?.filesDownloaded).toBe(2);
    await checkedCopy(prefix);

    // verify reads every object back; --repair downloads what it found missing or changed.
    await rclone(['deletefile', `rgw:${BUCKET}/${prefix}/${gone}`]);
    const verify = await runCli(['verify', '--dest', dest, '--s3-endpoint', ctx.rgw.endpoint, '--json'], { env: cliEnv() });
    expect(verify.code).toBe(1);
    const report = JSON.parse(verify.stdout.trim().split('\n')[0]!) as VerifyReport & { type: string };
    expect(report.type).toBe('verify');
    expect(report.missing).toEqual([gone]);
    const repair = await runCli(['verify', '--dest', dest, '--s3-endpoint', ctx.rgw.endpoint, '--repair'], { env: cliEnv(), timeoutMs: 90_000 });
    expect(repair.code, repair.stderr).toBe(0);
    await checkedCopy(prefix);
    const clean = await runCli(['verify', '--dest', dest, '--s3-endpoint', ctx.rgw.endpoint], { env: cliEnv() });
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
  });

  it('a second machine (no local state) adopts the objects by their sha256 metadata instead of downloading them', { timeout: 180_000 }, async () => {
    const prefix = freshPrefix();
    const dest = `s3://${BUCKET}/${prefix}`;
    const first = await syncInto(dest, { machine: 'one' });
    expect(first.code).toBe(0);
    const other = await syncInto(dest, { machine: 'two' });
    expect(other.code, other.stderr).toBe(0);
    expect(other.summary?.filesDownloaded).toBe(0);
    expect(other.summary?.bytesDownloaded).toBe(0);
    expect(other.events.some((e) => e.type === 'warning' && /another machine/.test(e.message))).toBe(true);
    // The manifest still lists every file (a walk from the bucket's watermark would have listed none).
    const copy = await checkedCopy(prefix);
    expect(copy.files.length).toBe(first.summary?.filesDownloaded);
  });

  it('refuses in words, exit 2, naming endpoint and bucket and never the secret: bad keys, a missing bucket, a non-S3 endpoint, another collection in the prefix', { timeout: 180_000 }, async () => {
    const secret = 'wrong-secret-0123456789abcdefghij';
    const bad = await syncInto(`s3://${BUCKET}/${freshPrefix()}`, { keys: { accessKeyId: ctx.rgw.accessKeyId, secretAccessKey: secret } });
    expect(bad.code).toBe(2);
    const badText = bad.stdout + bad.stderr;
    expect(badText).toContain(ctx.rgw.endpoint);
    expect(badText).toContain(BUCKET);
    expect(badText).not.toContain(secret);
    expect(badText).not.toMatch(/\n\s+at /); // no stack trace

    const missing = await syncInto(`s3://no-such-bucket-here/${freshPrefix()}`);
    expect(missing.code).toBe(2);
    expect(missing.summary?.fatal?.message).toMatch(/no-such-bucket-here/);

    // The reference service's own URL is not an S3 endpoint; a closed port answers nothing.
    const notS3 = await syncInto(`s3://${BUCKET}/${freshPrefix()}`, { endpoint: new URL(env.svc.deliveryBaseUrl).origin });
    expect([2, 4]).toContain(notS3.code);
    expect(notS3.summary?.fatal?.message ?? notS3.stderr).toMatch(new RegExp(new URL(env.svc.deliveryBaseUrl).port));
    const closed = await syncInto(`s3://${BUCKET}/${freshPrefix()}`, { endpoint: `http://127.0.0.1:${await closedLoopbackPort()}` });
    expect([2, 4]).toContain(closed.code);

    // A prefix that holds another collection is refused before anything is written.
    const prefix = freshPrefix();
    expect((await syncInto(`s3://${BUCKET}/${prefix}`)).code).toBe(0);
    const before = (await keysUnder(`${prefix}/`)).length;
    const { collectionId } = mainCollection(env.svc);
    const other = await runCli(
      ['sync', '--base-url', env.svc.deliveryBaseUrl, '--collection', String(collectionId + 1000), '--dest', `s3://${BUCKET}/${prefix}`, '--s3-endpoint', ctx.rgw.endpoint],
      { env: cliEnv() },
    );
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/holds collection/);
    expect((await keysUnder(`${prefix}/`)).length).toBe(before);
  });

  it('one sync per bucket prefix at a time: a second one exits 2 while the first holds the lock', { timeout: 180_000 }, async () => {
    const prefix = freshPrefix();
    const dest = `s3://${BUCKET}/${prefix}`;
    // The first sync is held on its files (a slow body) while the second one starts.
    await env.svc.admin.addFault({ api: 'delivery', path: '^/files/' }, { type: 'stall', afterBytes: 1000, ms: 4000 }, 1);
    const [a, b] = await Promise.all([syncInto(dest), new Promise((r) => setTimeout(r, 1500)).then(() => syncInto(dest, { machine: 'b' }))]);
    const codes = [a.code, b.code].sort();
    expect(codes[0]).toBe(0);
    expect(codes[1]).toBe(2);
    expect((b.code === 2 ? b : a).summary?.fatal?.kind).toBe('locked');
  });

  it('a set that left accepted moves into PREFIX.withdrawn/<id>/ (server-side, sha256 metadata kept); purge-withdrawn deletes it', { timeout: 180_000 }, async () => {
    const prefix = freshPrefix();
    const dest = `s3://${BUCKET}/${prefix}`;
    expect((await syncInto(dest)).code).toBe(0);
    const { collectionId } = mainCollection(env.svc);
    const leaving = (await servedSets(env.svc, collectionId))[0]!;
    await env.svc.admin.setStatus(leaving.id, 'rejected');
    try {
      const again = await syncInto(dest);
      expect(again.code, again.stderr).toBe(0);
      expect(again.summary?.withdrawnSets).toBe(1);
      expect((await keysUnder(`${prefix}/sets/${leaving.id}/`))).toEqual([]);
      const quarantined = await keysUnder(`${prefix}.withdrawn/${leaving.id}/`);
      for (const f of leaving.files) expect(quarantined).toContain(`${prefix}.withdrawn/${leaving.id}/${f.filename}`);
      expect(quarantined).toContain(`${prefix}.withdrawn/${leaving.id}/set.json`);
      const head = await ctx.admin.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${prefix}.withdrawn/${leaving.id}/${leaving.files[0]!.filename}` }));
      expect(head.Metadata?.sha256).toBe(leaving.files[0]!.sha256);
      expect((await checkedCopy(prefix)).files.some((f) => f.startsWith(`sets/${leaving.id}/`))).toBe(false);

      const purge = await runCli(['purge-withdrawn', '--dest', dest, '--s3-endpoint', ctx.rgw.endpoint], { env: cliEnv(), timeoutMs: 90_000 });
      expect(purge.code, purge.stderr).toBe(0);
      expect(purge.stdout).toContain(`delete  ${leaving.id}/`);
      expect(await keysUnder(`${prefix}.withdrawn/`)).toEqual([]);
    } finally {
      await env.svc.admin.setStatus(leaving.id, 'accepted');
    }
  });
});

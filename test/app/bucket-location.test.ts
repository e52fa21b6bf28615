// A collection's dataset in a real Ceph RGW bucket through the IPC handlers (issue 20, the app
// side): the bucket form's Test and "Use this bucket", the settings (no secret on disk), the
// keychain, refused locations, then a full sync into the bucket from the real reference service,
// its history, and no secret in any answer or event the handlers emit.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, DeleteObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceService, type RunningService } from '../../src-service/index';
import { createMainServices, type MainServices } from '../../src-main/ipc/services';
import type { EventChannel, EventChannels, IpcResult, SyncRunState } from '../../src-shared/ipc-contract';
import { createMemoryStore } from '../../src-main/secrets/memory-store';
import { createConfSettingsStore } from '../../src-main/settings/conf-settings';
import { CEPH_MISSING, needsCeph, startCephRgw, type CephRgw, adminClient, keysUnder as keysIn } from '../support/ceph-rgw';
import { until } from '../support/until';

const BUCKET = 'app-bucket';
const PREFIX = 'datasets/faces';

const ctx = {} as { rgw: CephRgw; admin: S3Client; service: RunningService; root: string; collectionId: number; apiKey: string; stateHome: string | undefined };

function harness() {
  const settings = createConfSettingsStore({ cwd: join(ctx.root, 'settings') });
  const secrets = createMemoryStore();
  const emitted: Array<{ channel: EventChannel; payload: unknown }> = [];
  const results: unknown[] = [];
  const services: MainServices = createMainServices({
    secrets,
    settings,
    pickFolder: async () => null,
    showItemInFolder: () => undefined,
    openExternal: async () => undefined,
    notify: () => undefined,
    emit: <C extends EventChannel>(channel: C, payload: EventChannels[C]) => void emitted.push({ channel, payload }),
    batchIntervalMs: 100,
  });
  async function call<T>(channel: keyof MainServices['handlers'], arg?: unknown): Promise<IpcResult<T>> {
    const result = (await services.handlers[channel](arg)) as IpcResult<T>;
    results.push(JSON.parse(JSON.stringify(result)));
    return result;
  }
  async function value<T>(channel: keyof MainServices['handlers'], arg?: unknown): Promise<T> {
    const result = await call<T>(channel, arg);
    if (!result.ok) throw new Error(`${String(channel)} failed: ${result.error.kind}: ${result.error.message}`);
    return result.value;
  }
  return { settings, secrets, emitted, results, services, call, value };
}

function keysUnder(prefix: string): Promise<string[]> {
  return keysIn(ctx.admin, BUCKET, prefix);
}

describe.skipIf(CEPH_MISSING !== null)(needsCeph('the app syncs a collection into a real Ceph RGW bucket'), () => {
  let h: ReturnType<typeof harness>;
  const location = () => ({ endpoint: ctx.rgw.endpoint, region: 'us-east-1', bucket: BUCKET, prefix: PREFIX, accessKeyId: ctx.rgw.accessKeyId });

  beforeAll(async () => {
    ctx.root = await mkdtemp(join(tmpdir(), 'ds-app-bucket-'));
    // The engine keeps a bucket's state and history under XDG_STATE_HOME: this test's own.
    ctx.stateHome = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = join(ctx.root, 'state');
    const [rgw, service] = await Promise.all([startCephRgw(), startReferenceService({ sets: 4, slots: 2, fileSize: 24 * 1024, seed: 2020, dataDir: join(ctx.root, 'media') })]);
    ctx.rgw = rgw;
    ctx.service = service;
    ctx.apiKey = service.clients[0]!.apiKey;
    ctx.collectionId = service.clients[0]!.collections[0]!;
    ctx.admin = adminClient(rgw);
    await ctx.admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
    h = harness();
    await h.value('connection:connect', { baseUrl: service.deliveryBaseUrl, apiKey: ctx.apiKey });
  }, 180_000);

  afterAll(async () => {
    await h?.services.shutdown();
    ctx.admin?.destroy();
    await ctx.rgw?.stop();
    await ctx.service?.close();
    if (ctx.stateHome === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = ctx.stateHome;
    if (ctx.root) await rm(ctx.root, { recursive: true, force: true });
  }, 60_000);

  it('Test: a wrong secret is refused in words naming the endpoint and bucket, never the secret; the right one passes', { timeout: 60_000 }, async () => {
    const wrong = 'WrongSecret0123456789abcdefWRONG';
    const bad = await h.value<{ ok: boolean; message: string }>('dataset:testBucket', { collectionId: ctx.collectionId, location: location(), secretAccessKey: wrong });
    expect(bad.ok).toBe(false);
    expect(bad.message).toContain(ctx.rgw.endpoint);
    expect(bad.message).toContain(BUCKET);
    expect(bad.message).not.toContain(wrong);

    const good = await h.value<{ ok: boolean; message: string }>('dataset:testBucket', { collectionId: ctx.collectionId, location: location(), secretAccessKey: ctx.rgw.secretAccessKey });
    expect(good).toMatchObject({ ok: true });
    expect(good.message).toContain(`s3://${BUCKET}/${PREFIX}`);
    expect(good.message).not.toContain(ctx.rgw.secretAccessKey);
  });

  it('"Use this bucket": the location in settings (no secret on disk), the secret in the keychain; invalid locations refused in words', { timeout: 60_000 }, async () => {
    const { collectionId } = ctx;
    const refusals: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ bucket: 'A_B' }, 'invalid_argument', /bucket name/],
      [{ prefix: '../x' }, 'invalid_argument', /prefix/],
      [{ endpoint: `${ctx.rgw.endpoint}/some/path` }, 'base_url', /path/i],
    ];
    for (const [change, kind, words] of refusals) {
      const r = await h.call('dataset:chooseBucket', { collectionId, location: { ...location(), ...change }, secretAccessKey: ctx.rgw.secretAccessKey });
      expect(r, JSON.stringify(change)).toMatchObject({ ok: false, error: { kind } });
      if (!r.ok) expect(r.error.message).toMatch(words);
    }
    const account = h.settings.activeAccount()!;
    expect(h.settings.collectionDataset(account.id, collectionId)).toBeNull();

    const dataset = await h.value<{ dest: string; bucket: unknown }>('dataset:chooseBucket', { collectionId, location: location(), secretAccessKey: ctx.rgw.secretAccessKey });
    expect(dataset).toMatchObject({ dest: `s3://${BUCKET}/${PREFIX}`, bucket: { bucket: BUCKET, prefix: PREFIX, endpoint: ctx.rgw.endpoint, accessKeyId: ctx.rgw.accessKeyId } });
    expect(h.settings.collectionDataset(account.id, collectionId)).toMatchObject({ dest: `s3://${BUCKET}/${PREFIX}`, bucket: { bucket: BUCKET, prefix: PREFIX } });
    const onDisk = await readFile(h.settings.path, 'utf8');
    expect(onDisk).toContain(`s3://${BUCKET}/${PREFIX}`);
    expect(onDisk).not.toContain(ctx.rgw.secretAccessKey);
    expect(await h.secrets.get(`s3:${ctx.rgw.endpoint}`, `${BUCKET}:${ctx.rgw.accessKeyId}`)).toBe(ctx.rgw.secretAccessKey);

    // Test without a typed secret uses the stored one.
    expect(await h.value('dataset:testBucket', { collectionId, location: location() })).toMatchObject({ ok: true });
  });

  it('sync:start fills the bucket under the prefix (sha256 metadata, consents beside it); history shows the run; no secret anywhere', { timeout: 120_000 }, async () => {
    const { collectionId } = ctx;
    const state = await h.value<SyncRunState>('sync:start', { collectionId });
    expect(state).toMatchObject({ collectionId, running: true });
    const done = () => h.emitted.filter((e) => e.channel === 'sync:state' && (e.payload as SyncRunState).collectionId === collectionId && !(e.payload as SyncRunState).running);
    await until('the sync into the bucket to finish', () => done().length > 0, 90_000);
    const end = done()[0]!.payload as SyncRunState;
    expect(end.lastSummary).toMatchObject({ exitCode: 0, cancelled: false, filesFailed: 0 });

    const served = await ctx.service.admin.state();
    const sets = served.collections.find((c) => c.id === collectionId)!.accepted_sets;
    const expected = sets.flatMap((s) => s.files.map((f) => ({ key: `${PREFIX}/sets/${s.id}/${f.filename}`, sha256: f.sha256 })));
    expect(expected.length).toBeGreaterThan(0);
    expect(end.lastSummary).toMatchObject({ filesDownloaded: expected.length });
    for (const f of expected) {
      const head = await ctx.admin.send(new HeadObjectCommand({ Bucket: BUCKET, Key: f.key }));
      expect(head.Metadata?.sha256).toBe(f.sha256);
    }
    const keys = await keysUnder(`${PREFIX}/`);
    expect(keys).toContain(`${PREFIX}/SHA256SUMS`);
    expect(keys).toContain(`${PREFIX}/manifest.csv`);
    expect(keys.some((k) => k.includes('consent'))).toBe(false);
    const consents = await keysUnder(`${PREFIX}.consents/`);
    expect(consents.length).toBeGreaterThan(0);

    const history = await h.value<Array<{ filesDownloaded: number; exitCode: number }>>('sync:history', { collectionId });
    expect(history[0]).toMatchObject({ exitCode: 0, filesDownloaded: expected.length });

    // Verify reads the bucket's objects back: an object removed behind the app's back is missing,
    // and Repair (sync:repair, with the bucket opened from the keychain) brings it back.
    const clean = await h.value<{ ok: number; missing: string[]; changed: string[] }>('verify:run', { collectionId });
    expect(clean).toMatchObject({ ok: expected.length, missing: [], changed: [] });
    const gone = expected[0]!.key;
    await ctx.admin.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: gone }));
    const damaged = await h.value<{ missing: string[] }>('verify:run', { collectionId });
    expect(damaged.missing).toEqual([gone.slice(PREFIX.length + 1)]);
    await h.value<SyncRunState>('sync:repair', { collectionId });
    await expect.poll(async () => (await h.value<SyncRunState>('sync:state', { collectionId })).running, { timeout: 60_000 }).toBe(false);
    const repaired = await h.value<{ ok: number; missing: string[] }>('verify:run', { collectionId });
    expect(repaired).toMatchObject({ ok: expected.length, missing: [] });

    const everything = JSON.stringify([h.results, h.emitted]);
    expect(everything).toContain(`s3://${BUCKET}/${PREFIX}`);
    expect(everything).not.toContain(ctx.rgw.secretAccessKey);
  });
});

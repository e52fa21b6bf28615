// End-to-end (real Chromium at 1280 px through the web bridge, real handlers and engine, the
// reference service, a real Ceph RGW): a collection's dataset set to an S3-compatible bucket
// from the Sync tab, tested, saved (the secret gone from the page), synced, and the objects
// checked in the bucket with the AWS SDK. Also the README screenshot of the filled form.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';
import { CEPH_MISSING, needsCeph, startCephRgw, type CephRgw, adminClient } from '../support/ceph-rgw';
import { docScreenshot } from '../support/doc-screenshot';

const BUCKET = 'window-bucket';
const PREFIX = 'datasets/collection-1';
const SETS = 3;
const SLOTS = 2;

const ctx = {} as { rgw: CephRgw; admin: S3Client; app: BrowserApp; page: Page; stateDir: string; stateHome: string | undefined };

describe.skipIf(CEPH_MISSING !== null)(needsCeph('the window syncs a collection into a real Ceph RGW bucket'), () => {
  beforeAll(async () => {
    // The engine keeps a bucket's state and history under XDG_STATE_HOME (the bridge runs in this process).
    ctx.stateDir = await mkdtemp(join(tmpdir(), 'ds-e2e-bucket-state-'));
    ctx.stateHome = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = ctx.stateDir;
    const [rgw, app] = await Promise.all([
      startCephRgw(),
      startBrowserApp({
        name: 'bucket',
        service: { seed: 20, sets: SETS, fileSize: 32 * 1024, slots: SLOTS },
        connected: true,
        pickFolderAnswer: () => null,
        viewport: { width: 1280, height: 900 },
      }),
    ]);
    ctx.rgw = rgw;
    ctx.app = app;
    ctx.page = app.page;
    ctx.admin = adminClient(rgw);
    await ctx.admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
  }, 240_000);

  afterAll(async () => {
    ctx.admin?.destroy();
    await ctx.app?.close();
    await ctx.rgw?.stop();
    if (ctx.stateHome === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = ctx.stateHome;
    if (ctx.stateDir) await rm(ctx.stateDir, { recursive: true, force: true });
  }, 60_000);

  it('S3-compatible bucket…: fill, Test, Use this bucket, Sync; the objects land in the bucket and the secret leaves the page', { timeout: 180_000 }, async () => {
    const { page, app, rgw } = ctx;
    const collectionId = app.service.clients[0]!.collections[0]!;
    await page.goto(app.bridge.url);
    await page.locator(`[data-collection-id="${collectionId}"]`).getByRole('button').first().click();
    await page.getByRole('tab', { name: 'Sync' }).click();
    await page.getByRole('button', { name: 'S3-compatible bucket…' }).click();

    const form = page.getByRole('form', { name: 'S3-compatible bucket' });
    await form.getByLabel('Endpoint').fill(rgw.endpoint);
    await form.getByLabel('Region').fill('us-east-1');
    await form.getByLabel('Bucket', { exact: true }).fill(BUCKET);
    await form.getByLabel('Prefix').fill(PREFIX);
    await form.getByLabel('Access key ID').fill(rgw.accessKeyId);
    await form.getByLabel('Secret access key').fill(rgw.secretAccessKey);
    expect(await form.getByLabel('Secret access key').getAttribute('type')).toBe('password');

    await form.getByRole('button', { name: 'Test', exact: true }).click();
    await expect.poll(() => page.getByTestId('bucket-test').textContent(), { timeout: 30_000 }).toContain('reachable, credentials accepted, the bucket takes writes');
    expect(await page.getByTestId('bucket-test').textContent()).toContain(`s3://${BUCKET}/${PREFIX}`);
    // Said as a success (the stylesheet's tone-ok colour), not as plain text.
    expect(await page.getByTestId('bucket-test').getAttribute('class')).toBe('tone-ok');
    // The filled form with the Test result (the secret is masked in a password field).
    await docScreenshot(page, 'bucket-location');

    await form.getByRole('button', { name: 'Use this bucket' }).click();
    await expect.poll(() => page.getByTestId('dataset-folder').textContent(), { timeout: 30_000 }).toBe(`s3://${BUCKET}/${PREFIX}`);
    // Saved: the secret is nowhere in the page (not in the DOM, not in a field's value).
    const values = await page.locator('input').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
    expect(values).not.toContain(rgw.secretAccessKey);
    expect(await page.content()).not.toContain(rgw.secretAccessKey);

    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    await expect.poll(() => page.getByTestId('sync-result').textContent(), { timeout: 90_000 }).toMatch(new RegExp(`^Last sync: ${SETS * SLOTS} downloaded, 0 up to date, 0 failed\\.`));

    const served = (await app.service.admin.state()).collections.find((c) => c.id === collectionId)!.accepted_sets;
    const expected = served.flatMap((s) => s.files.map((f) => ({ key: `${PREFIX}/sets/${s.id}/${f.filename}`, sha256: f.sha256 })));
    expect(expected).toHaveLength(SETS * SLOTS);
    for (const f of expected) {
      const head = await ctx.admin.send(new HeadObjectCommand({ Bucket: BUCKET, Key: f.key }));
      expect(head.Metadata?.sha256).toBe(f.sha256);
    }
    const consents = await ctx.admin.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${PREFIX}.consents/` }));
    expect(consents.KeyCount ?? 0).toBeGreaterThan(0);
    expect(await page.content()).not.toContain(rgw.secretAccessKey);
  });
});

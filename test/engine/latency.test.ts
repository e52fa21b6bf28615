// Latency hiding (src-main/sync/README.md "Latency"), checked on the reference service's request
// timeline (the order in which requests started and ended, never how long they took): consents
// go out while files are in flight and a set's consents together, the collection and page 1
// are asked for together, the next page is asked for before the current page's files are done,
// and an idle connection is never reused after the server has let it go.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDeliveryClient } from '../../src-main/api/delivery-client';
import { runSync } from '../../src-main/sync/engine';
import { startReferenceService, type RunningService, type ServiceOptions, type TimelineEvent } from '../../src-service/index';
import type { SyncEvent } from '../../src-shared/sync-events';
import { FAST_TUNING, mainCollection, tempDir } from './helpers';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function service(opts: ServiceOptions): Promise<{ svc: RunningService; dest: string }> {
  const root = await tempDir('dsync-latency-');
  const svc = await startReferenceService({ dataDir: path.join(root, 'service'), seed: 11, ...opts });
  cleanups.push(async () => {
    await svc.close();
    await fs.rm(root, { recursive: true, force: true });
  });
  return { svc, dest: path.join(root, 'dest') };
}

async function syncOnce(svc: RunningService, dest: string, extra: Parameters<typeof runSync>[0] extends infer O ? Partial<O> : never = {}, client?: ReturnType<typeof createDeliveryClient>) {
  const events: SyncEvent[] = [];
  const { apiKey, collectionId } = mainCollection(svc);
  const summary = await runSync({ baseUrl: svc.deliveryBaseUrl, apiKey, collectionId, dest, tuning: FAST_TUNING, ...extra }, (e) => events.push(e), { client });
  return { summary, events };
}

/** True when, at some moment, a request matching `isA` and one matching `isB` were in flight together. */
function overlap(timeline: TimelineEvent[], isA: (e: TimelineEvent) => boolean, isB: (e: TimelineEvent) => boolean): boolean {
  const a = new Set<number>();
  const b = new Set<number>();
  for (const e of timeline) {
    for (const [is, set] of [[isA, a], [isB, b]] as const) {
      if (!is(e)) continue;
      if (e.event === 'start') set.add(e.id);
      else set.delete(e.id);
    }
    if (a.size > 0 && b.size > 0) return true;
  }
  return false;
}

/** Most requests matching `is` in flight at once. */
function peak(timeline: TimelineEvent[], is: (e: TimelineEvent) => boolean): number {
  let now = 0;
  let max = 0;
  for (const e of timeline) {
    if (!is(e)) continue;
    now += e.event === 'start' ? 1 : -1;
    max = Math.max(max, now);
  }
  return max;
}

const isFile = (e: TimelineEvent) => e.route === 'GET /files/:id';
const isConsent = (e: TimelineEvent) => e.route === 'GET /consents/:id';

describe('latency hiding', () => {
  it('fetches consents while files download, and a set\'s consents in parallel, even at concurrency 1', async () => {
    // One set, two participants with consents, two files; every request held a while.
    const { svc, dest } = await service({ sets: 1, slots: 2, fileSize: 16 * 1024 });
    await svc.admin.addFault({ path: '^/files/' }, { type: 'latency', ms: 300 });
    await svc.admin.addFault({ path: '^/consents/' }, { type: 'latency', ms: 300 });
    const { summary } = await syncOnce(svc, dest, { concurrency: 1 });
    expect(summary.exitCode).toBe(0);
    const { timeline, byRoute } = await svc.admin.stats();
    expect(byRoute['GET /consents/:id']).toBe(2);
    expect(overlap(timeline, isConsent, isFile)).toBe(true);
    expect(peak(timeline, isConsent)).toBe(2);
  });

  it('asks for the collection and the first page of sets together', async () => {
    const { svc, dest } = await service({ sets: 2, slots: 1, fileSize: 4 * 1024 });
    const { collectionId } = mainCollection(svc);
    await svc.admin.addFault({ path: `^/collections/${collectionId}$` }, { type: 'latency', ms: 400 }, 1);
    const { summary } = await syncOnce(svc, dest);
    expect(summary.exitCode).toBe(0);
    const { timeline } = await svc.admin.stats();
    const collectionEnd = timeline.findIndex((e) => e.event === 'end' && e.route === 'GET /collections/:id');
    const pageStart = timeline.findIndex((e) => e.event === 'start' && e.route === 'GET /collections/:id/sets');
    expect(collectionEnd).toBeGreaterThan(-1);
    expect(pageStart).toBeGreaterThan(-1);
    expect(pageStart).toBeLessThan(collectionEnd);
  });

  it('asks for the next page of sets before the first file of the current page is done', async () => {
    // 201 sets: two pages of 200. The first file request is held; page 2 must not wait for it.
    const { svc, dest } = await service({ sets: 201, slots: 1, fileSize: 1024 });
    await svc.admin.addFault({ path: '^/files/' }, { type: 'latency', ms: 400 }, 1);
    const { summary } = await syncOnce(svc, dest, { concurrency: 1 });
    expect(summary.exitCode).toBe(0);
    expect(summary.filesDownloaded).toBe(201);
    const { timeline } = await svc.admin.stats();
    const page2Start = timeline.findIndex((e) => e.event === 'start' && /[?&]page=2\b/.test(e.path));
    const firstFileEnd = timeline.findIndex((e) => e.event === 'end' && isFile(e));
    expect(page2Start).toBeGreaterThan(-1);
    expect(page2Start).toBeLessThan(firstFileEnd);
  });

  it('keeps more small files than large ones in flight: concurrency counts large transfers', async () => {
    const small = await service({ sets: 12, slots: 2, fileSize: 16 * 1024 });
    await small.svc.admin.addFault({ path: '^/files/' }, { type: 'latency', ms: 200 });
    expect((await syncOnce(small.svc, small.dest, { concurrency: 2 })).summary.exitCode).toBe(0);
    expect(peak((await small.svc.admin.stats()).timeline, isFile)).toBeGreaterThan(2);

    const large = await service({ sets: 3, slots: 2, fileSize: 1024 * 1024 });
    await large.svc.admin.addFault({ path: '^/files/' }, { type: 'latency', ms: 200 });
    expect((await syncOnce(large.svc, large.dest, { concurrency: 2 })).summary.exitCode).toBe(0);
    expect(peak((await large.svc.admin.stats()).timeline, isFile)).toBe(2);
  });

  it('keeps sixteen consent requests in flight over HTTP/1.1 (four times a slot\'s small files), whatever the concurrency', async () => {
    // 12 sets of two participants: more consents than places (a few participants have none), each
    // held a while; the files are not.
    const { svc, dest } = await service({ sets: 12, slots: 1, fileSize: 1024 });
    await svc.admin.addFault({ path: '^/consents/' }, { type: 'latency', ms: 400 });
    const { summary } = await syncOnce(svc, dest, { concurrency: 1 });
    expect(summary.exitCode).toBe(0);
    const { timeline, byRoute } = await svc.admin.stats();
    expect(byRoute['GET /consents/:id']).toBeGreaterThan(16);
    expect(peak(timeline, isConsent)).toBe(16);
  });
});

describe('idle connections', () => {
  const gap = () => new Promise((r) => setTimeout(r, 5300));

  it('never reuses a connection the server has let go after its (unannounced) 5 s idle timeout', async () => {
    // The service does not say `Keep-Alive: timeout=5` and drops any request that comes on a connection idle for 5 s or more.
    const { svc, dest } = await service({ sets: 2, slots: 1, fileSize: 4 * 1024, idleTimeoutMs: 5000, announceKeepAlive: false, lazyIdleClose: true });
    const { apiKey } = mainCollection(svc);
    const client = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey });
    cleanups.push(() => client.close());
    expect((await syncOnce(svc, dest, {}, client)).summary.exitCode).toBe(0);
    await gap();
    const again = await syncOnce(svc, dest, {}, client);
    expect(again.summary.exitCode).toBe(0);
    expect(again.events.filter((e) => e.type === 'warning')).toEqual([]);
    expect((await svc.admin.stats()).idleDrops).toBe(0);
  }, 30_000);

  it('keeps a connection as long as the server announces in Keep-Alive', async () => {
    const { svc, dest } = await service({ sets: 2, slots: 1, fileSize: 4 * 1024, idleTimeoutMs: 9000, lazyIdleClose: true });
    const { apiKey } = mainCollection(svc);
    const client = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey });
    cleanups.push(() => client.close());
    expect((await syncOnce(svc, dest, {}, client)).summary.exitCode).toBe(0);
    const before = (await svc.admin.stats()).connections;
    await gap();
    const again = await syncOnce(svc, dest, {}, client);
    expect(again.summary.exitCode).toBe(0);
    const after = await svc.admin.stats();
    expect(after.idleDrops).toBe(0);
    // The admin client's own connection aside, the second sync opened none.
    expect(after.connections - before).toBeLessThanOrEqual(1);
  }, 30_000);
});

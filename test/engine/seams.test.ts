// The engine receives what it uses (runSync's deps): a fake clock sees every back-off and lets
// retries run without waiting; a rate limiter sees every downloaded byte and can hold transfers;
// the queue waits at a pause gate. Real service, real files.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLocalFolder, LocalFolder } from '../../src-main/sync/destination/local/local-folder';
import { runSync, type Clock, type PauseGate, type RateLimiter } from '../../src-main/sync/engine';
import type { SyncEvent } from '../../src-shared/sync-events';
import { expectDatasetMatches, FAST_TUNING, mainCollection, servedSets, sha256sumCheck, tempDir, useService } from './helpers';

/** Time moves only when the engine sleeps; each sleep ends on the next turn of the event loop. */
class FakeClock implements Clock {
  private t = Date.parse('2030-01-01T00:00:00Z');
  readonly sleeps: number[] = [];
  now(): number {
    return this.t;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.sleeps.push(ms);
    this.t += ms;
    await new Promise((r) => setImmediate(r));
  }
}

/** Counts every byte; every 16 KiB of debt it asks the transfer to wait a moment. */
class CountingLimiter implements RateLimiter {
  bytes = 0;
  calls = 0;
  waits = 0;
  private debt = 0;
  consumed(bytes: number): Promise<void> | undefined {
    this.bytes += bytes;
    this.calls++;
    this.debt += bytes;
    if (this.debt < 16 * 1024) return undefined;
    this.debt = 0;
    this.waits++;
    return new Promise((r) => setTimeout(r, 2));
  }
}

class ManualGate implements PauseGate {
  asked = 0;
  private opened = false;
  private waiters: Array<() => void> = [];
  whenOpen(): Promise<void> | undefined {
    this.asked++;
    if (this.opened) return undefined;
    return new Promise((r) => this.waiters.push(r));
  }
  open(): void {
    this.opened = true;
    for (const w of this.waiters.splice(0)) w();
  }
}

/** A folder destination that counts what the engine asks of it. */
class WatchedFolder extends LocalFolder {
  closed = 0;
  uploads = 0;
  written: string[] = [];
  override async openUpload(...args: Parameters<LocalFolder['openUpload']>) {
    this.uploads++;
    return super.openUpload(...args);
  }
  override openUploadNow(...args: Parameters<LocalFolder['openUploadNow']>) {
    const upload = super.openUploadNow(...args);
    if (upload !== null) this.uploads++;
    return upload;
  }
  override async writeAtomic(...args: Parameters<LocalFolder['writeAtomic']>) {
    this.written.push(args[0]);
    return super.writeAtomic(...args);
  }
  override async close(): Promise<void> {
    this.closed++;
  }
}

async function withDest<T>(fn: (dest: string) => Promise<T>): Promise<T> {
  const dir = await tempDir('dsync-seams-');
  try {
    return await fn(path.join(dir, 'ds'));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

describe('runSync with injected dependencies', () => {
  const env = useService({ sets: 3, fileSize: 40 * 1024 + 7, slots: 2 });

  it('backs off on the injected clock: 503s and a 429 are retried without real waiting', async () => {
    const { svc, collectionId } = env;
    const [file] = (await servedSets(svc, collectionId)).flatMap((s) => s.files);
    await svc.admin.addFault({ path: '^/collections/\\d+$' }, { type: 'status', status: 503 }, 2);
    await svc.admin.addFault({ path: '^/collections/\\d+/sets$' }, { type: 'rate_limit', retryAfter: 120 }, 1);
    await svc.admin.addFault({ path: `^/files/${file!.id}$` }, { type: 'status', status: 503 }, 1);
    const clock = new FakeClock();
    await withDest(async (dest) => {
      const { apiKey } = mainCollection(svc);
      // A one-minute base delay (capped at 30 s): waiting for real would outlast the test's timeout.
      const summary = await runSync({ baseUrl: svc.deliveryBaseUrl, apiKey, collectionId, dest, tuning: { ...FAST_TUNING, retryBaseMs: 60_000 } }, () => undefined, { clock });
      expect(summary.exitCode).toBe(0);
      // Two 503s on the collection, the page's Retry-After (120 s, honoured exactly), one 503 on the file.
      expect(clock.sleeps).toHaveLength(4);
      expect(clock.sleeps).toContain(120_000);
      // The others: exponential back-off capped at 30 s, half of it jitter.
      for (const ms of clock.sleeps.filter((x) => x !== 120_000)) {
        expect(ms).toBeGreaterThanOrEqual(15_000);
        expect(ms).toBeLessThanOrEqual(30_000);
      }
      // The summary's times come from the same clock: the run took exactly the back-off it slept.
      expect(summary.durationMs).toBeCloseTo(clock.sleeps.reduce((a, b) => a + b, 0), 3);
      expect(summary.startedAt).toBe('2030-01-01T00:00:00.000Z');
      await expectDatasetMatches(svc, dest, collectionId);
    });
  });

  it('passes every downloaded byte through the rate limiter, which can hold transfers', async () => {
    const { svc, collectionId } = env;
    const total = (await servedSets(svc, collectionId)).flatMap((s) => s.files).reduce((a, f) => a + f.size_bytes, 0);
    const limiter = new CountingLimiter();
    await withDest(async (dest) => {
      const { apiKey } = mainCollection(svc);
      const summary = await runSync({ baseUrl: svc.deliveryBaseUrl, apiKey, collectionId, dest, tuning: FAST_TUNING }, () => undefined, { limiter });
      expect(summary.exitCode).toBe(0);
      expect(summary.bytesDownloaded).toBe(total);
      expect(limiter.bytes).toBe(total);
      expect(limiter.waits).toBeGreaterThan(0);
      expect((await sha256sumCheck(dest)).code).toBe(0);
    });
  });

  it('starts no work while the pause gate is closed', async () => {
    const { svc, collectionId } = env;
    const gate = new ManualGate();
    const events: SyncEvent[] = [];
    await withDest(async (dest) => {
      const { apiKey } = mainCollection(svc);
      const running = runSync({ baseUrl: svc.deliveryBaseUrl, apiKey, collectionId, dest, concurrency: 2, tuning: FAST_TUNING }, (e) => events.push(e), { gate });
      // The walk asks the gate before it plans the first page's sets (and the queue before each task).
      while (gate.asked < 1) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 100));
      expect(events.some((e) => e.type === 'file' && e.state === 'downloading')).toBe(false);
      gate.open();
      const summary = await running;
      expect(summary.exitCode).toBe(0);
      expect(summary.filesDownloaded).toBe(6);
    });
  });

  it('syncs into injected destinations for the dataset and the consents, and leaves them open', async () => {
    const { svc, collectionId } = env;
    await withDest(async (dest) => {
      const { apiKey } = mainCollection(svc);
      const folder = new WatchedFolder(dest);
      const consentsDir = `${dest}-records`;
      const consents = new WatchedFolder(createLocalFolder(consentsDir, { consents: { dataset: dest } }).root, { consentsRole: true });
      // options.dest names another folder: the injected destination is the one written.
      const elsewhere = `${dest}-unused`;
      const events: SyncEvent[] = [];
      const summary = await runSync({ baseUrl: svc.deliveryBaseUrl, apiKey, collectionId, dest: elsewhere, tuning: FAST_TUNING }, (e) => events.push(e), {
        destination: folder,
        consents,
      });
      expect(summary.exitCode).toBe(0);
      expect(summary.dest).toBe(dest);
      expect(summary.consentsDir).toBe(consentsDir);
      expect(events.find((e) => e.type === 'start')).toMatchObject({ dest, consentsDir });
      expect(folder.uploads).toBe(6);
      expect(folder.written).toEqual(expect.arrayContaining(['collection.json', 'manifest.csv', 'SHA256SUMS']));
      // The head lives in the state database, not in the destination (one machine's folder).
      expect(folder.written).not.toContain('.dataset-sync/state.json');
      expect(consents.written.length).toBeGreaterThan(0);
      expect(consents.written.every((k) => /^\d+\.json$/.test(k))).toBe(true);
      expect([folder.closed, consents.closed]).toEqual([0, 0]);
      await expect(fs.access(elsewhere)).rejects.toMatchObject({ code: 'ENOENT' });
      await expectDatasetMatches(svc, dest, collectionId);
    });
  });
});

// A whole sync over HTTP/2: the client offers h2 to an https service (the reference service in
// its TLS mode, a CA made for the run and trusted through NODE_EXTRA_CA_CERTS), every transfer
// rides one multiplexed connection, and resume (Range after a stream reset) and hash checks
// work as over HTTP/1.1.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSync } from '../../src-main/sync/engine';
import type { SyncEvent, SyncOptions } from '../../src-shared/sync-events';
import { FAST_TUNING, sha256Of } from '../engine/helpers';
import { startTlsService, type TlsService } from './support';

let t: TlsService;
let root: string;
beforeAll(async () => {
  t = await startTlsService();
  // Read at the first https connection of this process (dispatcher.ts).
  process.env.NODE_EXTRA_CA_CERTS = t.certs.caCertPath;
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-h2-'));
});
afterAll(async () => {
  await t?.close();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

async function sync(dest: string, extra: Partial<SyncOptions> = {}) {
  const events: SyncEvent[] = [];
  const summary = await runSync(
    { baseUrl: t.svc.deliveryBaseUrl, apiKey: t.apiKey, collectionId: t.collectionId, dest: path.join(root, dest), tuning: FAST_TUNING, ...extra },
    (e) => events.push(e),
  );
  return { summary, events };
}

async function acceptedFiles() {
  const state = await t.svc.admin.state();
  return state.collections.find((c) => c.id === t.collectionId)!.accepted_sets.flatMap((s) => s.files.map((f) => ({ ...f, setId: s.id })));
}

describe('sync over HTTP/2', () => {
  it('syncs every file over h2, multiplexed', async () => {
    await t.svc.admin.resetStats();
    const { summary } = await sync('full');
    expect(summary.exitCode).toBe(0);
    const files = await acceptedFiles();
    expect(summary.filesDownloaded).toBe(files.length);
    const stats = await t.svc.admin.stats();
    // Every API request of the sync went over HTTP/2; the admin client's own calls are HTTP/1.1.
    expect(stats.byHttpVersion['2.0']).toBe(summary.requests);
    // Six files and their consents multiplexed: the sync opened at most two connections (the
    // collection and page 1 go out together, before the first connection is up, so undici may
    // open a second one for them); the admin client opened the last.
    expect(stats.connections).toBeLessThanOrEqual(3);
    for (const f of files) expect(sha256Of(path.join(root, 'full', 'sets', String(f.setId), f.filename))).toBe(f.sha256);
  });

  it('resumes a transfer whose stream was reset, and re-fetches a file that fails its hash', async () => {
    const [first, second] = await acceptedFiles();
    await t.svc.admin.addFault({ path: `^/files/${first!.id}$` }, { type: 'reset', afterBytes: 40 * 1024 }, 1);
    await t.svc.admin.addFault({ path: `^/files/${second!.id}$` }, { type: 'flip', atByte: 1000 }, 1);
    await t.svc.admin.resetStats();
    const { summary, events } = await sync('faults');
    expect(summary.exitCode).toBe(0);
    const retries = events.filter((e) => e.type === 'file' && e.state === 'retrying');
    // The reset one went on from the bytes it had; the flipped one started again.
    expect(retries.some((e) => e.type === 'file' && e.fileId === first!.id && (e.bytesDone ?? 0) > 0)).toBe(true);
    expect(retries.some((e) => e.type === 'file' && e.fileId === second!.id)).toBe(true);
    for (const f of [first!, second!]) expect(sha256Of(path.join(root, 'faults', 'sets', String(f.setId), f.filename))).toBe(f.sha256);
    const stats = await t.svc.admin.stats();
    expect(Object.keys(stats.byHttpVersion).filter((v) => v !== '1.1')).toEqual(['2.0']);
  });
});

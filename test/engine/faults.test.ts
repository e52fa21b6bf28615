// Every fault the reference service can inject still ends with every served file verified and
// nothing unverified under a final name.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Fault } from '../../src-service/index';
import { expectDatasetMatches, listFiles, servedSets, sha256sumCheck, sync, tempDir, useService } from './helpers';

const FILE_SIZE = 32 * 1024;
const env = useService({ sets: 3, fileSize: FILE_SIZE, slots: 2, seed: 11 });

async function syncWithFault(fault: Fault, times: number, pathRe = '^/files/') {
  const dir = await tempDir('dsync-fault-');
  const dest = path.join(dir, 'ds');
  try {
    await env.svc.admin.addFault({ path: pathRe }, fault, times);
    await env.svc.admin.resetStats();
    const result = await sync(env.svc, dest);
    expect(result.summary.fatal).toBeUndefined();
    expect(result.summary.exitCode).toBe(0);
    await expectDatasetMatches(env.svc, dest, env.collectionId);
    expect((await sha256sumCheck(dest)).code).toBe(0);
    expect(await listFiles(path.join(dest, '.dataset-sync', 'partial'))).toEqual([]);
    return { ...result, stats: await env.svc.admin.stats() };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function firstFileId(): Promise<number> {
  return (await servedSets(env.svc, env.collectionId))[0]!.files[0]!.id;
}

describe('faults on file downloads', () => {
  it('503 several times', async () => {
    const r = await syncWithFault({ type: 'status', status: 503 }, 3);
    expect(r.events.some((e) => e.type === 'file' && e.state === 'retrying')).toBe(true);
  });

  it('429 with Retry-After', async () => {
    const r = await syncWithFault({ type: 'rate_limit', retryAfter: 1 }, 1);
    expect(r.events.some((e) => e.type === 'file' && e.state === 'retrying')).toBe(true);
  });

  it('latency', async () => {
    await syncWithFault({ type: 'latency', ms: 200 }, 2);
  });

  it('connection reset mid-body resumes from the held bytes', async () => {
    const id = await firstFileId();
    const r = await syncWithFault({ type: 'reset', afterBytes: 10_000 }, 1, `^/files/${id}$`);
    // The second request for that file asked only for the rest (a restart would resend the 10,000 bytes).
    expect(r.stats.fileBytesSent).toBeLessThan(6 * FILE_SIZE + 10_000);
    expect(r.events.some((e) => e.type === 'file' && e.state === 'retrying' && e.fileId === id && (e.bytesDone ?? 0) > 0)).toBe(true);
  });

  it('a stalled transfer is aborted by the watchdog and resumed', async () => {
    const id = await firstFileId();
    const r = await syncWithFault({ type: 'stall', afterBytes: 8_000, ms: 20_000 }, 1, `^/files/${id}$`);
    expect(r.events.some((e) => e.type === 'file' && e.state === 'retrying' && e.fileId === id)).toBe(true);
  });

  it('a truncated body (ends cleanly short) is resumed', async () => {
    const id = await firstFileId();
    const r = await syncWithFault({ type: 'truncate', afterBytes: 12_000 }, 1, `^/files/${id}$`);
    expect(r.stats.fileBytesSent).toBe(6 * FILE_SIZE);
  });

  it('a flipped byte fails the hash and the file is downloaded again', async () => {
    const id = await firstFileId();
    const r = await syncWithFault({ type: 'flip', atByte: 100 }, 1, `^/files/${id}$`);
    expect(r.events.some((e) => e.type === 'file' && e.state === 'retrying' && e.fileId === id && /SHA-256/.test(e.reason ?? ''))).toBe(true);
    expect(r.stats.byRoute).toBeDefined();
  });

  it('a server ignoring Range on resume (200) starts over', async () => {
    const id = await firstFileId();
    await env.svc.admin.addFault({ path: `^/files/${id}$` }, { type: 'truncate', afterBytes: 12_000 }, 1);
    const r = await syncWithFault({ type: 'ignore_range' }, 2, `^/files/${id}$`);
    expect(r.summary.filesDownloaded).toBe(6);
  });

  it('a file that keeps failing is reported, the rest verified, and retried on the next sync', async () => {
    const dir = await tempDir('dsync-fault-');
    const dest = path.join(dir, 'ds');
    try {
      const id = await firstFileId();
      await env.svc.admin.addFault({ path: `^/files/${id}$` }, { type: 'status', status: 500 });
      const first = await sync(env.svc, dest);
      expect(first.summary.exitCode).toBe(1);
      expect(first.summary.filesFailed).toBe(1);
      expect(first.summary.setsFailed).toBe(1);
      expect(first.summary.failures[0]!.fileId).toBe(id);
      const sums = await fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8');
      expect(sums.trim().split('\n')).toHaveLength(5);
      expect((await sha256sumCheck(dest)).code).toBe(0);
      await env.svc.admin.clearFaults();
      // Move the watermark out of the way: the failed set must come back through the pending list.
      const second = await sync(env.svc, dest);
      expect(second.summary.exitCode).toBe(0);
      expect(second.summary.filesDownloaded).toBe(1);
      await expectDatasetMatches(env.svc, dest, env.collectionId);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('faults on the walk', () => {
  it('503 on the sets list is retried', async () => {
    await syncWithFault({ type: 'status', status: 503 }, 2, '/sets$');
  });

  it('malformed JSON stops the sync with a clear message and keeps earlier verified files', async () => {
    const dir = await tempDir('dsync-fault-');
    const dest = path.join(dir, 'ds');
    try {
      expect((await sync(env.svc, dest)).summary.exitCode).toBe(0);
      const sumsBefore = await fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8');
      await env.svc.admin.addFault({ path: '/sets$' }, { type: 'body', status: 200, contentType: 'application/json', body: '{"sets": [ {"id": 1,' }, 1);
      const { summary } = await sync(env.svc, dest);
      expect(summary.exitCode).toBe(4);
      expect(summary.fatal?.kind).toBe('malformed');
      expect(summary.fatal?.message).toMatch(/not valid JSON/);
      expect(await fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8')).toBe(sumsBefore);
      expect((await sha256sumCheck(dest)).code).toBe(0);
      await env.svc.admin.addFault({ path: '/sets$' }, { type: 'body', status: 200, contentType: 'application/json', body: '{"sets": [], "page": 1, "per_page": 200, "total": "x", "has_more": false}' }, 1);
      const again = await sync(env.svc, dest);
      expect(again.summary.exitCode).toBe(4);
      expect(again.summary.fatal?.message).toContain('total');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

// Every retry is bounded (issue 12): a file gets a budget of attempts and of bytes (4x its size
// in one sync), so a server that keeps throwing received bytes away fails that file (exit 1)
// instead of looping for ever, and a trickle under 1 KiB/s is a stall; the other files sync and
// SHA256SUMS verifies.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAST_TUNING, sha256sumCheck, sync, useService } from './helpers';
import { filePathPattern, servedPage, withTempDest as withDest } from './pages';

const FILE_SIZE = 24 * 1024;
const env = useService({ sets: 2, fileSize: FILE_SIZE, slots: 2, seed: 1201 });

async function sumsList(dest: string): Promise<string> {
  return fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8');
}

describe('per-file retry budget', () => {
  it('size_bytes one larger than the body ("ended early" -> 416 -> start over) fails the file, not loops', { timeout: 60_000 }, async () => {
    const { svc } = env;
    const page = await servedPage(svc);
    const lying = page.sets[0]!.files[0]!;
    lying.size_bytes += 1;
    await svc.admin.addFault({ path: '/sets$' }, { type: 'body', body: JSON.stringify(page) });
    await withDest(async (dest) => {
      const { summary, events } = await sync(svc, dest);
      expect(summary.exitCode).toBe(1);
      expect(summary.filesFailed).toBe(1);
      expect(summary.filesDownloaded).toBe(3);
      const failure = summary.failures.find((f) => f.fileId === lying.id);
      expect(failure?.reason).toMatch(/more than 4x its size/);
      // Bounded: at most the budget (plus the last attempt) went over the wire for it.
      expect(summary.bytesDownloaded).toBeLessThanOrEqual(3 * FILE_SIZE + 5 * (FILE_SIZE + 1));
      const set = events.find((e) => e.type === 'set' && e.setId === page.sets[0]!.id && e.state === 'failed');
      expect(set).toBeDefined();
      expect((await sha256sumCheck(dest)).code).toBe(0);
      expect(await sumsList(dest)).not.toContain(lying.filename);
    });
  });

  it('size_bytes one smaller than the body: each body is cut as oversize, and the file fails after 3 with no bytes kept', { timeout: 60_000 }, async () => {
    const { svc } = env;
    const page = await servedPage(svc);
    // A small file: its first attempt is received whole (transfer/body-sinks.ts WholeBodySink), so that receiver's size check judges it.
    const lying = page.sets[1]!.files[0]!;
    lying.size_bytes -= 1;
    await svc.admin.addFault({ path: '/sets$' }, { type: 'body', body: JSON.stringify(page) });
    await withDest(async (dest) => {
      const { summary } = await sync(svc, dest);
      expect(summary.exitCode).toBe(1);
      expect(summary.filesFailed).toBe(1);
      expect(summary.filesDownloaded).toBe(3);
      const failure = summary.failures.find((f) => f.fileId === lying.id);
      expect(failure?.reason).toMatch(/more than the announced 24575 bytes \(3 times; the file was discarded\)/);
      expect(failure?.code).toBe('oversize');
      expect(await fs.readdir(path.join(dest, '.dataset-sync', 'partial'))).toEqual([]);
      expect((await sha256sumCheck(dest)).code).toBe(0);
      expect(await sumsList(dest)).not.toContain(lying.filename);
    });
  });

  it('a 206 whose Content-Range does not match, after a body that ended early, fails the file within the budget', { timeout: 60_000 }, async () => {
    const { svc } = env;
    const page = await servedPage(svc);
    const file = page.sets[1]!.files[1]!;
    const filePath = filePathPattern(svc, file.url);
    // The server alternates for as long as the client keeps asking: half the body, then a 206 without a usable range.
    for (let i = 0; i < 30; i++) {
      await svc.admin.addFault({ path: filePath }, { type: 'truncate', afterBytes: FILE_SIZE / 2 }, 1);
      await svc.admin.addFault({ path: filePath }, { type: 'body', status: 206, contentType: 'application/octet-stream', body: 'x' }, 1);
    }
    await withDest(async (dest) => {
      const { summary } = await sync(svc, dest);
      expect(summary.exitCode).toBe(1);
      expect(summary.filesFailed).toBe(1);
      const failure = summary.failures.find((f) => f.fileId === file.id);
      expect(failure?.reason).toMatch(/more than 4x its size/);
      expect((await sha256sumCheck(dest)).code).toBe(0);
      expect(await sumsList(dest)).not.toContain(file.filename);

      // With a healthy server the next sync completes the file.
      await svc.admin.clearFaults();
      const again = await sync(svc, dest);
      expect(again.summary.exitCode).toBe(0);
      expect((await sha256sumCheck(dest)).code).toBe(0);
      expect(await sumsList(dest)).toContain(file.filename);
    });
  });

  it('a 206 with a well-formed Content-Range for other bytes or another size is dropped, and the file fetched whole again', { timeout: 60_000 }, async () => {
    const { svc } = env;
    const page = await servedPage(svc);
    const file = page.sets[0]!.files[0]!;
    const filePath = filePathPattern(svc, file.url);
    const half = FILE_SIZE / 2;
    const junk = 'x'.repeat(half);
    // Cut at half, then a resume answered with a range that starts at byte 0; cut again, then one of another total.
    for (const contentRange of [`bytes 0-${half - 1}/${FILE_SIZE}`, `bytes ${half}-${FILE_SIZE - 1}/${FILE_SIZE + 1}`]) {
      await svc.admin.addFault({ path: filePath }, { type: 'truncate', afterBytes: half }, 1);
      await svc.admin.addFault({ path: filePath }, { type: 'body', status: 206, contentType: 'application/octet-stream', contentRange, body: junk }, 1);
    }
    await withDest(async (dest) => {
      const { summary, events } = await sync(svc, dest);
      expect(summary.exitCode).toBe(0);
      const reasons = events.flatMap((e) => (e.type === 'file' && e.fileId === file.id && e.state === 'retrying' ? [e.reason ?? ''] : []));
      // Neither answer's bytes were appended to the held half (that would be a SHA-256 mismatch instead).
      expect(reasons.filter((r) => r.includes('unexpected Content-Range'))).toEqual([
        expect.stringContaining(`"bytes 0-${half - 1}/${FILE_SIZE}" for a resume at ${half} of ${FILE_SIZE}; starting over`),
        expect.stringContaining(`"bytes ${half}-${FILE_SIZE - 1}/${FILE_SIZE + 1}" for a resume at ${half} of ${FILE_SIZE}; starting over`),
      ]);
      expect(reasons.some((r) => r.includes('SHA-256 mismatch'))).toBe(false);
      expect((await sha256sumCheck(dest)).code).toBe(0);
      expect(await sumsList(dest)).toContain(file.filename);
    });
    await svc.admin.clearFaults();
  });

  it('a body trickling under 1 KiB/s counts as stalled: aborted, resumed, and failed after the attempts', { timeout: 60_000 }, async () => {
    const { svc } = env;
    const page = await servedPage(svc);
    const file = page.sets[0]!.files[1]!;
    const filePath = filePathPattern(svc, file.url);
    // 16 bytes every 200 ms: never silent for a whole stall window, so only the rate gives it away.
    await svc.admin.addFault({ path: filePath }, { type: 'trickle', bytes: 16, everyMs: 200 });
    await withDest(async (dest) => {
      const { summary, events } = await sync(svc, dest, { tuning: { ...FAST_TUNING, maxAttempts: 3 } });
      expect(summary.exitCode).toBe(1);
      expect(summary.filesFailed).toBe(1);
      const failure = summary.failures.find((f) => f.fileId === file.id);
      expect(failure?.reason).toMatch(/stalled \(\d+ bytes in [\d.]+ s, under 1 KiB\/s\).*gave up after 3 attempts/);
      // Resumed between attempts: each retry started from the bytes already held.
      const retries = events.filter((e) => e.type === 'file' && e.fileId === file.id && e.state === 'retrying');
      expect(retries).toHaveLength(2);
      expect(retries.every((e) => e.type === 'file' && (e.bytesDone ?? 0) > 0)).toBe(true);
      expect((await sha256sumCheck(dest)).code).toBe(0);
      expect(await sumsList(dest)).not.toContain(file.filename);
    });
  });
});

describe('page walk budget', () => {
  it('a page that repeats the last one and still says has_more stops the walk (exit 1), keeps what was listed, not 100,000 requests', { timeout: 60_000 }, async () => {
    const { svc } = env;
    const page = await servedPage(svc);
    await svc.admin.addFault({ path: '/sets$' }, { type: 'body', body: JSON.stringify({ ...page, has_more: true }) });
    await withDest(async (dest) => {
      const { summary, events } = await sync(svc, dest);
      expect(summary.exitCode).toBe(1);
      expect(summary.fatal).toBeUndefined();
      expect(summary.setsComplete).toBe(2);
      expect(summary.failures.map((f) => f.reason).join('\n')).toMatch(/page 2 still says has_more, but it brought no set not listed before/);
      expect(events.some((e) => e.type === 'warning' && /did not end/.test(e.message))).toBe(true);
      expect(summary.requests).toBeLessThan(20);
      // Every set `total` counts was listed, so the watermark moved on.
      expect(summary.watermark).not.toBeNull();
      expect((await sha256sumCheck(dest)).code).toBe(0);
    });
  });
});

// The plain words of a failed file (src-renderer/failure-words.ts) are chosen by the engine's
// failure code: this pins the codes the real engine gives when the reference service
// misbehaves, and the words each code gets, so neither can drift into vague words in the app.
import { describe, expect, it } from 'vitest';
import type { Fault } from '../../src-service/index';
import { codeOf, explainFailure, failureReport, isKnownFailure, plainWarning, shortDetail } from '../../src-renderer/failure-words';
import type { FailureCode } from '../../src-shared/sync-events';
import { sync, tempDir, useService } from '../engine/helpers';

const ctx = useService({ sets: 1, slots: 1, fileSize: 8 * 1024 });

const CASES: Array<{ name: string; fault: Fault; code: FailureCode; summary: string }> = [
  { name: 'a 404 for the file', fault: { type: 'status', status: 404 }, code: 'not_served', summary: 'No longer offered' },
  { name: 'a 403 for the file', fault: { type: 'status', status: 403 }, code: 'forbidden', summary: 'Access refused' },
  { name: '503 on every attempt', fault: { type: 'status', status: 503 }, code: 'server_error', summary: 'Service error' },
  { name: '429 on every attempt', fault: { type: 'rate_limit', retryAfter: 0 }, code: 'rate_limited', summary: 'Service busy' },
  { name: 'a corrupt body every time', fault: { type: 'flip', atByte: 100 }, code: 'hash_mismatch', summary: 'Arrived damaged' },
  { name: 'a body cut short every time', fault: { type: 'truncate', afterBytes: 0 }, code: 'connection', summary: 'Connection kept breaking' },
  { name: 'a trickle under 1 KiB/s', fault: { type: 'stall', afterBytes: 100, ms: 5000 }, code: 'stalled', summary: 'Download stalled' },
  { name: 'a 500 that echoes the key', fault: { type: 'echo_auth', status: 500 }, code: 'server_error', summary: 'Service error' },
];

describe('plain words for the reasons the engine gives', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      await ctx.svc.admin.addFault({ api: 'delivery', path: '^/files/' }, c.fault);
      const { events } = await sync(ctx.svc, await tempDir(), { tuning: { retryBaseMs: 5, maxAttempts: 3, stallTimeoutMs: 300, progressIntervalMs: 100 } });
      const failed = events.filter((e) => e.type === 'file' && e.state === 'failed');
      expect(failed).toHaveLength(1);
      const event = failed[0]!;
      if (event.type !== 'file') throw new Error('not a file event');
      const reason = event.reason ?? '';
      // The engine names the failure with a stable code, in the event and in the summary.
      expect(event.code, reason).toBe(c.code);
      const summary = events.find((e) => e.type === 'summary');
      if (summary?.type !== 'summary') throw new Error('no summary');
      expect(summary.summary.failures.map((f) => f.code)).toEqual([c.code]);
      expect(isKnownFailure(reason, event.code), reason).toBe(true);
      const plain = explainFailure(reason, event.code);
      expect(plain.summary, reason).toBe(c.summary);
      // Older history without a code reads the same from the reason's shape.
      expect(codeOf(reason), reason).toBe(c.code);
      // The detail is there, without the API path prefix or anything key-like.
      expect(plain.detail.length).toBeGreaterThan(0);
      expect(plain.detail).not.toContain('/api/v1/partner');
      expect(plain.detail).not.toMatch(/dsk_|Bearer (?!\[hidden\])/);
      expect(failureReport(event.path, plain)).not.toContain(ctx.svc.clients[0]!.apiKey);
    });
  }

  it('chooses the words by code: a reworded reason cannot change what the user is told', () => {
    expect(explainFailure('the body hashed to something else entirely', 'hash_mismatch').summary).toBe('Arrived damaged');
    expect(explainFailure('HTTP 503 (server error)', 'not_served').summary).toBe('No longer offered');
    expect(explainFailure('whatever words', 'unknown').summary).toBe('Could not download');
  });

  it('falls back to general words for a reason it does not know, keeping the detail', () => {
    const plain = explainFailure('something new went wrong');
    expect(plain.summary).toBe('Could not download');
    expect(plain.detail).toBe('something new went wrong');
    expect(isKnownFailure('something new went wrong')).toBe(false);
  });

  it('shortens request paths and URLs and hides key-like text', () => {
    expect(shortDetail('GET /api/v1/partner/files/54: HTTP 503')).toBe('GET …/files/54: HTTP 503');
    expect(shortDetail('file sets/9/set_9_slot_01.mp4: SHA-256 mismatch')).toBe('SHA-256 mismatch');
    expect(shortDetail('see https://cdn.example.org/media/9/abc?sig=1 (Authorization: Bearer abc.def)')).toBe('see cdn.example.org/… (Authorization: Bearer [hidden])');
    expect(shortDetail('key dsk_live_0123456789abcdef was refused')).toBe('key [key hidden] was refused');
  });

  it('says the walk\'s warnings as retries, with the request path shortened', async () => {
    await ctx.svc.admin.addFault({ api: 'delivery', path: '/sets$' }, { type: 'status', status: 503 }, 1);
    const { events } = await sync(ctx.svc, await tempDir(), { tuning: { retryBaseMs: 5, maxAttempts: 3 } });
    const warnings = events.flatMap((e) => (e.type === 'warning' ? [e.message] : []));
    expect(warnings.length).toBeGreaterThan(0);
    const plain = plainWarning(warnings[0]!);
    expect(plain, warnings[0]).toMatch(/^Asked again \(retry 1\) after: /);
    expect(plain).not.toContain('/api/v1/partner');
    expect(plain).not.toMatch(/; retry \d+$/);
  });
});

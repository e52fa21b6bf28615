import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src-main/api/errors';
import { BaseUrlError } from '../../src-main/api/base-url';
import { IpcFailure } from '../../src-main/ipc/ipc-failure';
import { redact, toIpcError } from '../../src-main/ipc/to-ipc-error';
import { SecretStoreUnavailableError } from '../../src-main/secrets/secret-store';
import { createEventBatcher } from '../../src-main/app/event-batcher';
import type { SyncEvent } from '../../src-shared/sync-events';

const KEY = 'dsk_live_SECRETSECRET';
const silent = () => undefined;

describe('toIpcError', () => {
  it('maps error kinds and keeps field errors', () => {
    expect(toIpcError(new ApiError('auth', 'HTTP 401'), [], silent)).toEqual({ kind: 'auth', message: 'HTTP 401' });
    expect(toIpcError(new ApiError('rate_limited', 'slow down'), [], silent).kind).toBe('server');
    expect(toIpcError(new ApiError('validation', 'bad', { fieldErrors: { title: ['required'] } }), [], silent)).toEqual({ kind: 'validation', message: 'bad', fieldErrors: { title: ['required'] } });
    expect(toIpcError(new BaseUrlError('no http'), [], silent).kind).toBe('base_url');
    expect(toIpcError(new SecretStoreUnavailableError('locked'), [], silent).kind).toBe('keychain');
    expect(toIpcError(new IpcFailure('busy', 'running'), [], silent)).toEqual({ kind: 'busy', message: 'running' });
  });

  it('never passes on an unknown error message or stack, and redacts keys from known ones', () => {
    const unknown = toIpcError(new TypeError(`boom with ${KEY}`), [KEY], silent);
    expect(unknown).toEqual({ kind: 'internal', message: 'Unexpected error in the app; see the log for details.' });
    const leaked = toIpcError(new ApiError('network', `connect failed for Bearer ${KEY}`), [KEY], silent);
    expect(leaked.message).not.toContain(KEY);
    expect(leaked.message).toContain('[redacted]');
    expect(redact('abc', ['ab'])).toBe('abc'); // too short to be a key: left alone
  });
});

describe('event batcher', () => {
  const progress = (bytesDone: number): SyncEvent => ({ type: 'progress', phase: 'downloading', paused: false, setsDone: 0, setsTotal: 1, fraction: 0, bytesRedownloaded: 0, bytesDone, bytesTotal: 100, filesDone: 0, filesTotal: 1, bytesPerSecond: 0, etaSeconds: null, active: [] });

  it('keeps every non-progress event in order and only the newest progress, flushing on demand', () => {
    const batches: SyncEvent[][] = [];
    const batcher = createEventBatcher((b) => batches.push(b), 60_000);
    batcher.push(progress(1));
    batcher.push({ type: 'warning', message: 'a' });
    batcher.push(progress(2));
    batcher.push(progress(3));
    batcher.push({ type: 'warning', message: 'b' });
    expect(batches).toEqual([]);
    batcher.flush();
    expect(batches).toEqual([[{ type: 'warning', message: 'a' }, progress(3), { type: 'warning', message: 'b' }]]);
    batcher.flush();
    expect(batches).toHaveLength(1);
  });
});

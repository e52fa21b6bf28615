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

  const file = (fileId: number, state: 'queued' | 'downloading' | 'verified', setId = 7): SyncEvent => ({ type: 'file', setId, fileId, path: `sets/${setId}/${fileId}.mp4`, sizeBytes: 10, state });

  it("keeps a file's newest state where the file was first reported, and the other events in order", () => {
    const batches: SyncEvent[][] = [];
    const batcher = createEventBatcher((b) => batches.push(b), 60_000);
    batcher.push(file(1, 'queued'));
    batcher.push(file(2, 'queued'));
    batcher.push(progress(1));
    batcher.push(file(1, 'downloading'));
    batcher.push({ type: 'set', setId: 7, state: 'discovered', files: 2, isGold: false });
    batcher.push(file(1, 'verified'));
    batcher.push(file(1, 'queued', 8)); // the same file id in another set is another file
    batcher.push(progress(2));
    batcher.flush();
    batcher.push(file(1, 'verified', 8));
    batcher.flush();
    expect(batches).toEqual([
      [file(1, 'verified'), file(2, 'queued'), { type: 'set', setId: 7, state: 'discovered', files: 2, isGold: false }, file(1, 'queued', 8), progress(2)],
      // A new batch starts afresh: the file's newer state is sent again.
      [file(1, 'verified', 8)],
    ]);
  });

  it('sends as soon as the batch holds its most events, counting only those it keeps', () => {
    const batches: SyncEvent[][] = [];
    const batcher = createEventBatcher((b) => batches.push(b), 60_000, 3);
    batcher.push(file(1, 'queued'));
    batcher.push(file(1, 'downloading'));
    batcher.push(file(1, 'verified'));
    batcher.push(file(2, 'queued'));
    expect(batches).toEqual([]);
    batcher.push(file(3, 'queued'));
    expect(batches).toEqual([[file(1, 'verified'), file(2, 'queued'), file(3, 'queued')]]);
    batcher.flush();
    expect(batches).toHaveLength(1);
  });
});

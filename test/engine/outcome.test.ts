// One table maps how a sync (or a CLI command outside a sync) ends to its exit code (docs/contracts.md §2).
import { describe, expect, it } from 'vitest';
import { exitCodeFor, summaryExitCode } from '../../src-main/sync/outcome';

describe('exit codes', () => {
  it('maps fatal kinds: configuration 2, authentication 3, the service 4', () => {
    for (const kind of ['config', 'local_fs', 'locked', 'internal', 'not_found'] as const) expect(exitCodeFor(kind)).toBe(2);
    expect(exitCodeFor('auth')).toBe(3);
    for (const kind of ['network', 'server', 'rate_limited', 'malformed', 'forbidden', 'bad_request'] as const) expect(exitCodeFor(kind)).toBe(4);
  });

  it('a finished sync is 0 when everything verified, 1 when something failed or it was cancelled', () => {
    const clean = { cancelled: false, filesFailed: 0, setsFailed: 0 };
    expect(summaryExitCode(undefined, clean)).toBe(0);
    expect(summaryExitCode(undefined, { ...clean, filesFailed: 1 })).toBe(1);
    expect(summaryExitCode(undefined, { ...clean, setsFailed: 1 })).toBe(1);
    expect(summaryExitCode(undefined, { ...clean, cancelled: true })).toBe(1);
    expect(summaryExitCode({ kind: 'auth', message: '' }, { ...clean, filesFailed: 3 })).toBe(3);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { INFO_NOTICE_MS, MAX_NOTICES, useNotices } from '../../src-renderer/stores/notices';

describe('notices', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    useNotices.setState({ notices: [] });
  });
  afterEach(() => vi.useRealTimers());

  const messages = () => useNotices.getState().notices.map((n) => n.message);

  it('info goes by itself after a few seconds; warnings and errors stay until dismissed', () => {
    const { push } = useNotices.getState();
    push({ level: 'info', message: 'Sync of "A" finished: 3 downloaded, 0 up to date, 0 failed.' });
    push({ level: 'error', message: 'Sync of "A" failed: unreachable.' });
    push({ level: 'warning', message: 'Sync of "B" finished with failures.' });
    vi.advanceTimersByTime(INFO_NOTICE_MS + 1);
    expect(messages()).toEqual(['Sync of "A" failed: unreachable.', 'Sync of "B" finished with failures.']);
    vi.advanceTimersByTime(10 * INFO_NOTICE_MS);
    expect(messages()).toHaveLength(2);
    useNotices.getState().dismiss(useNotices.getState().notices[0]!.id);
    expect(messages()).toEqual(['Sync of "B" finished with failures.']);
  });

  it('shows at most a few at once, the newest', () => {
    for (let i = 1; i <= 6; i++) useNotices.getState().push({ level: 'error', message: `error ${i}` });
    expect(MAX_NOTICES).toBeLessThanOrEqual(3);
    expect(messages()).toEqual(['error 4', 'error 5', 'error 6'].slice(-MAX_NOTICES));
  });

  it('notices about an account go when another account becomes active; app-wide ones stay', () => {
    useNotices.getState().push({ level: 'error', message: 'Sync of "A" failed.', accountId: 'acc-1' });
    useNotices.getState().push({ level: 'warning', message: 'System proxy settings: PAC is not followed.' });
    useNotices.getState().forgetAccountNotices();
    expect(messages()).toEqual(['System proxy settings: PAC is not followed.']);
  });
});

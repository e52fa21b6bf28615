// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, render, screen } from '@testing-library/react';
import { SyncProgress } from '../../src-renderer/components/SyncProgress';
import type { AggregateProgress } from '../../src-renderer/stores/sync';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const base: AggregateProgress = { bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: 0, bytesPerSecond: 0, etaSeconds: null, fraction: 0.02, setsDone: 4, setsTotal: 200, phase: 'listing' };

describe('SyncProgress', () => {
  it('names the phase and shows sets n of N', () => {
    render(<SyncProgress progress={base} running />);
    expect(screen.getByTestId('overall-progress').textContent).toMatch(/^2% · sets 4 of 200 · .* · listing sets · /);
  });

  it('counts the walk retry down every second between events, and restarts from each event', () => {
    vi.useFakeTimers();
    const retrying: AggregateProgress = { ...base, phase: 'retrying', retry: { attempt: 3, of: 6, inSeconds: 8 } };
    const { rerender } = render(<SyncProgress progress={retrying} running />);
    const countdown = () => screen.getByTestId('retry-countdown').textContent;
    expect(countdown()).toBe('retrying: attempt 3 of 6 in 8 s');
    act(() => void vi.advanceTimersByTime(1000));
    expect(countdown()).toBe('retrying: attempt 3 of 6 in 7 s');
    act(() => void vi.advanceTimersByTime(2000));
    expect(countdown()).toBe('retrying: attempt 3 of 6 in 5 s');
    rerender(<SyncProgress progress={{ ...retrying, retry: { attempt: 3, of: 6, inSeconds: 6 } }} running />);
    expect(countdown()).toBe('retrying: attempt 3 of 6 in 6 s');
    act(() => void vi.advanceTimersByTime(7000));
    expect(countdown()).toBe('retrying: attempt 3 of 6 starting');
    rerender(<SyncProgress progress={{ ...base, phase: 'listing' }} running />);
    expect(screen.queryByTestId('retry-countdown')).toBeNull();
  });
});

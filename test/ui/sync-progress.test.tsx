// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, render, screen } from '@testing-library/react';
import { SyncProgress } from '../../src-renderer/components/SyncProgress';
import type { AggregateProgress } from '../../src-renderer/stores/sync-view';
import { formatBytes, formatRate } from '../../src-renderer/format';

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

  it('while the last media probes run, says so with the files left and promises no time', () => {
    const probing: AggregateProgress = { ...base, fraction: 1, setsDone: 24, setsTotal: 24, bytesDone: 5_000_000, bytesTotal: 5_000_000, filesDone: 96, filesTotal: 96, etaSeconds: null, phase: 'checking_media', phases: ['checking_media'], mediaLeft: 7 };
    render(<SyncProgress progress={probing} running />);
    const text = screen.getByTestId('overall-progress').textContent!;
    expect(text).toContain('checking the media (7 files left)');
    expect(text).not.toContain('writing the manifest');
    expect(text).not.toMatch(/about \d+ s left/);
  });

  it('while sets are listed, shows the estimated totals as such and everything the sync is doing', () => {
    const listing: AggregateProgress = {
      ...base, fraction: 0.19, setsDone: 5, setsTotal: 24, bytesDone: 19_700_000, bytesTotal: 55_600_000, filesDone: 40, filesTotal: 110, bytesPerSecond: 63_000_000, etaSeconds: 2,
      phases: ['listing', 'downloading'], estimated: true, bytesTotalEstimate: 100_000_000, filesTotalEstimate: 200,
    };
    render(<SyncProgress progress={listing} running />);
    const text = screen.getByTestId('overall-progress');
    expect(text.textContent).toBe(`19% · sets 5 of 24 · ${formatBytes(19_700_000)} of about ${formatBytes(100_000_000)} · files 40 of about 200 · listing sets and downloading · ${formatRate(63_000_000)} · about 2 s left`);
    expect(text.dataset.estimated).toBe('true');
  });

  it('before any set is listed, says the totals are not known yet instead of "0 B of 0 B"', () => {
    render(<SyncProgress progress={{ ...base, fraction: 0, setsDone: 0, setsTotal: 24, estimated: true, bytesTotalEstimate: null, filesTotalEstimate: null }} running />);
    const text = screen.getByTestId('overall-progress').textContent;
    expect(text).toMatch(/^0% · sets 0 of 24 · 0 B · files 0 \(totals known once the first sets are listed\) · listing sets · /);
    expect(text).not.toContain('0 B of 0 B');
  });

  it('once every set is listed, shows the exact totals', () => {
    render(<SyncProgress progress={{ ...base, fraction: 0.5, bytesDone: 50_000_000, bytesTotal: 100_000_000, filesDone: 100, filesTotal: 200, phase: 'downloading', phases: ['downloading'], estimated: false, bytesTotalEstimate: 100_000_000, filesTotalEstimate: 200 }} running />);
    expect(screen.getByTestId('overall-progress').textContent).toContain(`50% · sets 4 of 200 · ${formatBytes(50_000_000)} of ${formatBytes(100_000_000)} · files 100 of 200 · downloading · `);
  });

  it('counts the walk back-off down in place, with the transfers that go on meanwhile', () => {
    render(<SyncProgress progress={{ ...base, phase: 'retrying', phases: ['retrying', 'downloading'], retry: { attempt: 2, of: 6, inSeconds: 4 } }} running />);
    expect(screen.getByTestId('overall-progress').textContent).toMatch(/ · retrying: attempt 2 of 6 in 4 s and downloading · /);
  });

  it('says paused instead of a phase, a rate and a time left', () => {
    render(<SyncProgress progress={{ ...base, paused: true, phases: ['listing', 'downloading'] }} running />);
    const text = screen.getByTestId('overall-progress').textContent ?? '';
    expect(text).toMatch(/ · paused$/);
    expect(text).not.toMatch(/downloading|listing|B\/s|ETA|left/);
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

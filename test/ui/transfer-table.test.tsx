// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { TransferTable } from '../../src-renderer/components/TransferTable';
import { reduceSyncEvents } from '../../src-renderer/stores/sync-reducer';
import { emptySyncView, type FileRow } from '../../src-renderer/stores/sync-view';
import type { FileState, SyncEvent, SyncSummary } from '../../src-shared/sync-events';

// jsdom does no layout: give scroll containers the size a window would, so the virtualiser has a viewport.
beforeAll(() => {
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 300 });
  Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 800 });
});
afterEach(cleanup);

function rowsOf(states: (id: number) => FileState, count: number) {
  const events: SyncEvent[] = [{ type: 'start', collectionId: 1, dest: '/d', full: false, watermark: null }];
  for (let id = 1; id <= count; id++) {
    const state = states(id);
    events.push({ type: 'file', setId: id, fileId: id, path: `sets/${id}/set_${id}_slot_01.mp4`, sizeBytes: 64_000, state, bytesDone: state === 'downloading' ? 16_000 : undefined, reason: state === 'failed' ? `file sets/${id}/set_${id}_slot_01.mp4: not served (404); its set may have left accepted` : state === 'retrying' ? 'GET /api/v1/partner/files/54: HTTP 503: injected fault: HTTP 503' : undefined, attempt: state === 'retrying' ? 3 : undefined });
  }
  return reduceSyncEvents(emptySyncView(), events);
}

function progressWith(active: Extract<SyncEvent, { type: 'progress' }>['active']): SyncEvent {
  return { type: 'progress', phase: 'downloading', paused: false, setsDone: 1, setsTotal: 60, bytesDone: 0, bytesTotal: 1, filesDone: 0, filesTotal: 60, fraction: 0.1, bytesPerSecond: 0, etaSeconds: null, bytesRedownloaded: 0, active };
}

function summaryOf(): SyncSummary {
  const at = new Date().toISOString();
  return { collectionId: 1, dest: '/d', sets: 60, setsComplete: 60, setsFailed: 0, setsNotServed: [], withdrawnSets: 0, filesDownloaded: 0, filesUpToDate: 0, filesFailed: 0, bytesDownloaded: 0, bytesHashed: 0, requests: 0, failures: [], watermark: null, startedAt: at, finishedAt: at, durationMs: 0, exitCode: 1, cancelled: true };
}

function dataRows(): HTMLElement[] {
  return within(screen.getByRole('table', { name: 'File transfers' })).getAllByRole('row').filter((r) => r.dataset.fileId !== undefined);
}

describe('TransferTable', () => {
  it('puts only a window of 5,000 rows in the DOM', () => {
    const view = rowsOf(() => 'queued', 5000);
    render(<TransferTable rows={view.rows} counts={view.stateCounts} />);
    const rendered = dataRows();
    expect(rendered.length).toBeGreaterThan(5);
    expect(rendered.length).toBeLessThan(100);
    expect(rendered[0]?.textContent).toContain('sets/1/set_1_slot_01.mp4');
    expect(screen.getByRole('table', { name: 'File transfers' }).getAttribute('aria-rowcount')).toBe('5001');
    expect(screen.getByText('5000 files')).toBeTruthy();
  });

  it('says Paused, with the percent, on rows in flight while the sync is paused (and shows no speed)', () => {
    const view = reduceSyncEvents(rowsOf(() => 'downloading', 2), [progressWith([{ fileId: 1, path: 'sets/1/set_1_slot_01.mp4', bytesDone: 59_520, sizeBytes: 64_000, bytesPerSecond: 0 }])]);
    render(<TransferTable rows={view.rows} counts={view.stateCounts} paused />);
    const texts = dataRows().map((r) => r.textContent ?? '');
    expect(texts[0]).toContain('Paused 93%');
    expect(texts[1]).toContain('Paused 25%');
    expect(texts.join(' ')).not.toMatch(/Downloading|B\/s/);
  });

  it('shows each state in words, with percent, attempt and reason', () => {
    const states: FileState[] = ['queued', 'downloading', 'retrying', 'verified', 'up_to_date', 'failed'];
    const view = rowsOf((id) => states[id - 1]!, states.length);
    render(<TransferTable rows={view.rows} counts={view.stateCounts} />);
    const text = (id: number) => dataRows().find((r) => r.dataset.fileId === String(id))?.textContent ?? '';
    expect(text(1)).toContain('Queued');
    expect(text(2)).toContain('Downloading 25%');
    expect(text(3)).toContain('Retrying (attempt 3): Service error');
    expect(text(4)).toContain('Verified');
    expect(text(5)).toContain('Up to date');
    expect(text(6)).toContain('Failed: No longer offered');
    expect(dataRows().map((r) => r.textContent).join(' ')).not.toContain('/api/v1/partner');
    expect(text(1)).toContain('62.5 KiB');
  });

  it('pins transfers in flight on top with their own speed, then failures, then the rest in reported order', () => {
    const view = rowsOf((id) => (id === 40 || id === 7 ? 'downloading' : id === 25 ? 'failed' : id === 33 ? 'retrying' : 'verified'), 60);
    const next = reduceSyncEvents(view, [
      progressWith([
        { fileId: 40, path: 'sets/40/set_40_slot_01.mp4', bytesDone: 32_000, sizeBytes: 64_000, bytesPerSecond: 2048 },
        { fileId: 7, path: 'sets/7/set_7_slot_01.mp4', bytesDone: 16_000, sizeBytes: 64_000, bytesPerSecond: 1_500_000 },
      ]),
    ]);
    render(<TransferTable rows={next.rows} counts={next.stateCounts} />);
    const rendered = dataRows();
    expect(rendered.slice(0, 5).map((r) => r.dataset.fileId)).toEqual(['7', '33', '40', '25', '1']);
    expect(within(rendered[0]!).getByTestId('file-speed').textContent).toBe('1.43 MiB/s');
    expect(within(rendered[2]!).getByTestId('file-speed').textContent).toBe('2.00 KiB/s');
    expect(rendered[2]?.textContent).toContain('Downloading 50%');
    expect(within(rendered[4]!).getByTestId('file-speed').textContent).toBe('');
    // Once the run ends no row keeps a speed.
    const ended = reduceSyncEvents(next, [{ type: 'summary', summary: summaryOf() }]);
    expect(ended.rows.some((r) => r.bytesPerSecond !== undefined)).toBe(false);
  });

  it('unfolds a failed row by keyboard to plain words, the shortened detail and a Copy button', async () => {
    const copied: string[] = [];
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (t: string) => void copied.push(t) } });
    const events: SyncEvent[] = [
      { type: 'start', collectionId: 1, dest: '/d', full: false, watermark: null },
      { type: 'file', setId: 9, fileId: 54, path: 'sets/9/set_9_slot_02.wav', sizeBytes: 1000, state: 'failed', reason: 'GET /api/v1/partner/files/54: HTTP 503: injected fault: the request carried Authorization: Bearer dsk_live_[redacted] (gave up after 6 attempts)' },
    ];
    const view = reduceSyncEvents(emptySyncView(), events);
    render(<TransferTable rows={view.rows} counts={view.stateCounts} />);
    const toggle = screen.getByRole('button', { name: /Failed: Service error/ });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByTestId('failure-details')).toBeNull();
    toggle.focus();
    fireEvent.click(toggle); // a native button: Enter and Space click it
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const details = screen.getByTestId('failure-details');
    expect(toggle.getAttribute('aria-controls')).toBe(details.id);
    expect(details.textContent).toContain("The problem is on the service's side");
    expect(details.textContent).toContain('The app tried 6 times.');
    expect(details.textContent).toContain('Details: GET …/files/54: HTTP 503');
    expect(details.textContent).not.toContain('/api/v1/partner');
    expect(details.textContent).not.toContain('dsk_live');
    fireEvent.click(within(details).getByRole('button', { name: 'Copy' }));
    await screen.findByText('Copied to the clipboard.');
    expect(copied).toHaveLength(1);
    expect(copied[0]).toMatch(/^File: sets\/9\/set_9_slot_02\.wav\nProblem: Service error\. /);
    expect(copied[0]).not.toContain('dsk_live');
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByTestId('failure-details')).toBeNull();
  });

  it('filters by state, with counts in the choices', () => {
    const view = rowsOf((id) => (id % 10 === 0 ? 'failed' : 'verified'), 5000);
    render(<TransferTable rows={view.rows} counts={view.stateCounts} />);
    const filter = screen.getByLabelText('Filter files by state') as HTMLSelectElement;
    expect(within(filter).getByRole('option', { name: 'Failed (500)' })).toBeTruthy();
    fireEvent.change(filter, { target: { value: 'failed' } });
    const rendered = dataRows();
    expect(rendered.length).toBeGreaterThan(0);
    expect(rendered.length).toBeLessThan(100);
    expect(rendered.every((r) => r.dataset.state === 'failed')).toBe(true);
    expect(rendered[0]?.dataset.fileId).toBe('10');
    expect(screen.getByText('500 of 5000 files')).toBeTruthy();
    fireEvent.change(filter, { target: { value: 'retrying' } });
    expect(dataRows()).toHaveLength(0);
    expect(screen.getByText('No files in this state.')).toBeTruthy();
  });

  it('updates a row in place when the rows change', () => {
    const view = rowsOf(() => 'queued', 3);
    const { rerender } = render(<TransferTable rows={view.rows} counts={view.stateCounts} />);
    const next = reduceSyncEvents(view, [{ type: 'file', setId: 2, fileId: 2, path: 'sets/2/set_2_slot_01.mp4', sizeBytes: 64_000, state: 'verified' }]);
    rerender(<TransferTable rows={next.rows} counts={next.stateCounts} />);
    const row = dataRows().find((r) => r.dataset.fileId === '2');
    expect(row?.textContent).toContain('Verified');
  });

  it('says what to do when there are no rows yet', () => {
    render(<TransferTable rows={[] as FileRow[]} counts={emptySyncView().stateCounts} />);
    expect(screen.getByText('No files yet. Press Sync to start.')).toBeTruthy();
  });
});

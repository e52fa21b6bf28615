// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { TransferTable } from '../../src-renderer/components/TransferTable';
import { emptySyncView, reduceSyncEvents, type FileRow } from '../../src-renderer/stores/sync';
import type { FileState, SyncEvent } from '../../src-shared/sync-events';

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
    events.push({ type: 'file', setId: id, fileId: id, path: `sets/${id}/set_${id}_slot_01.mp4`, sizeBytes: 64_000, state, bytesDone: state === 'downloading' ? 16_000 : undefined, reason: state === 'failed' ? 'HTTP 404' : undefined, attempt: state === 'retrying' ? 3 : undefined });
  }
  return reduceSyncEvents(emptySyncView(), events);
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

  it('shows each state in words, with percent, attempt and reason', () => {
    const states: FileState[] = ['queued', 'downloading', 'retrying', 'verified', 'up_to_date', 'failed'];
    const view = rowsOf((id) => states[id - 1]!, states.length);
    render(<TransferTable rows={view.rows} counts={view.stateCounts} />);
    const texts = dataRows().map((r) => r.textContent ?? '');
    expect(texts[0]).toContain('Queued');
    expect(texts[1]).toContain('Downloading 25%');
    expect(texts[2]).toContain('Retrying (attempt 3');
    expect(texts[3]).toContain('Verified');
    expect(texts[4]).toContain('Up to date');
    expect(texts[5]).toContain('Failed: HTTP 404');
    expect(texts[0]).toContain('64.0 KB');
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

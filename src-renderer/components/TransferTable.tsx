import { useEffect, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { FileState } from '../../src-shared/sync-events';
import { FILE_STATES, rowKey, type FileRow } from '../stores/sync-view';
import { formatBytes, formatRate, percent } from '../format';
import { FILE_STATE_NAMES, FileStateLabel } from './FileStateLabel';
import { FailureDetails, FailureToggle } from './FailureDetails';

const ROW_HEIGHT = 30;
/** A first guess for an expanded failed row; the row is then measured. */
const EXPANDED_HEIGHT = 150;

type Filter = FileState | 'all';

const IN_FLIGHT: ReadonlySet<FileState> = new Set(['downloading', 'retrying']);

/**
 * The table's order: transfers in flight pinned on top, then failures (what needs attention),
 * then every other file, each group in the order the files were first reported.
 */
export function pinnedOrder(rows: readonly FileRow[]): FileRow[] {
  const active: FileRow[] = [];
  const failed: FileRow[] = [];
  const rest: FileRow[] = [];
  for (const row of rows) (IN_FLIGHT.has(row.state) ? active : row.state === 'failed' ? failed : rest).push(row);
  return active.length === 0 && failed.length === 0 ? (rows as FileRow[]) : [...active, ...failed, ...rest];
}

/**
 * Per-file transfer rows, virtualised: only the rows in view (plus a small overscan) are in the
 * DOM, so a sync of thousands of files re-renders a few dozen elements per progress batch.
 * A failed row unfolds to its reason in plain words, the technical detail and a Copy button.
 * While the sync is `paused`, rows in flight say so (and show no speed: nothing is received).
 */
export function TransferTable({ rows, counts, paused = false }: { rows: FileRow[]; counts: Record<FileState, number>; paused?: boolean }) {
  const [filter, setFilter] = useState<Filter>('all');
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const shown = useMemo(() => pinnedOrder(filter === 'all' ? rows : rows.filter((r) => r.state === filter)), [rows, filter]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const keyAt = (index: number) => {
    const row = shown[index];
    return row ? rowKey(row) : String(index);
  };
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (index) => (expanded.has(keyAt(index)) ? EXPANDED_HEIGHT : ROW_HEIGHT),
    overscan: 10,
    getItemKey: (index) => keyAt(index),
  });
  // Only unfolded rows are measured; folding one drops its measured height.
  useEffect(() => {
    virtualizer.measure();
  }, [expanded, virtualizer]);

  const toggle = (key: string) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (!next.delete(key)) next.add(key);
      return next;
    });

  return (
    <div className="transfer">
      <div className="transfer-toolbar">
        <label>
          Show{' '}
          <select value={filter} onChange={(e) => setFilter(e.target.value as Filter)} aria-label="Filter files by state">
            <option value="all">All files ({rows.length})</option>
            {FILE_STATES.map((state) => (
              <option key={state} value={state}>
                {FILE_STATE_NAMES[state]} ({counts[state]})
              </option>
            ))}
          </select>
        </label>
        <span className="muted" aria-live="off">
          {shown.length === rows.length ? `${rows.length} files` : `${shown.length} of ${rows.length} files`}
          {counts.downloading + counts.retrying > 0 && ' · transfers in flight first'}
        </span>
      </div>
      <div role="table" aria-label="File transfers" aria-rowcount={shown.length + 1} className="transfer-table">
        <div role="rowgroup">
          <div role="row" className="transfer-row transfer-head" aria-rowindex={1}>
            <span role="columnheader">File</span>
            <span role="columnheader" className="num">
              Size
            </span>
            <span role="columnheader" className="num">
              Speed
            </span>
            <span role="columnheader">State</span>
          </div>
        </div>
        <div ref={scrollRef} className="transfer-scroll" role="rowgroup" tabIndex={0} aria-label="File rows (scrollable)">
          {shown.length === 0 ? (
            <p className="muted transfer-empty">{rows.length === 0 ? 'No files yet. Press Sync to start.' : 'No files in this state.'}</p>
          ) : (
            <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
              {virtualizer.getVirtualItems().map((item) => {
                const row = shown[item.index];
                if (!row) return null;
                const open = row.state === 'failed' && expanded.has(rowKey(row));
                const detailsId = `failure-${row.setId}-${row.fileId}`;
                const inFlight = IN_FLIGHT.has(row.state);
                return (
                  <div
                    key={item.key}
                    ref={open ? virtualizer.measureElement : undefined}
                    data-index={item.index}
                    role="row"
                    aria-rowindex={item.index + 2}
                    data-file-id={row.fileId}
                    data-state={row.state}
                    className={`transfer-row${inFlight ? ' in-flight' : ''}${open ? ' expanded' : ''}`}
                    style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${item.start}px)` }}
                  >
                    <span role="cell" className="path" title={row.path}>
                      {row.path}
                    </span>
                    <span role="cell" className="num">
                      {formatBytes(row.sizeBytes)}
                    </span>
                    <span role="cell" className="num speed" data-testid="file-speed">
                      {inFlight && !paused && row.bytesPerSecond !== undefined ? formatRate(row.bytesPerSecond) : ''}
                    </span>
                    <span role="cell" className="state-cell">
                      {row.state === 'failed' ? <FailureToggle row={row} open={open} controls={detailsId} onToggle={() => toggle(rowKey(row))} /> : <FileStateLabel row={row} paused={paused} />}
                      {row.state === 'downloading' && (
                        <span className="mini-bar" aria-hidden="true">
                          <span style={{ width: `${percent(row.bytesDone, row.sizeBytes)}%` }} />
                        </span>
                      )}
                    </span>
                    {open && <FailureDetails row={row} id={detailsId} />}
                  </div>
                );
              })}
            </div>
          )}
        </div>
      </div>
    </div>
  );
}

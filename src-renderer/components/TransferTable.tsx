import { useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { FileState } from '../../src-shared/sync-events';
import { FILE_STATES, type FileRow } from '../stores/sync';
import { formatBytes, percent } from '../format';
import { FILE_STATE_NAMES, FileStateLabel } from './FileStateLabel';

const ROW_HEIGHT = 30;

type Filter = FileState | 'all';

/**
 * Per-file transfer rows, virtualised: only the rows in view (plus a small overscan) are in the
 * DOM, so a sync of thousands of files re-renders a few dozen elements per progress batch.
 */
export function TransferTable({ rows, counts }: { rows: FileRow[]; counts: Record<FileState, number> }) {
  const [filter, setFilter] = useState<Filter>('all');
  const shown = useMemo(() => (filter === 'all' ? rows : rows.filter((r) => r.state === filter)), [rows, filter]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
    getItemKey: (index) => shown[index]?.fileId ?? index,
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
        </span>
      </div>
      <div role="table" aria-label="File transfers" aria-rowcount={shown.length + 1} className="transfer-table">
        <div role="rowgroup">
          <div role="row" className="transfer-row transfer-head" aria-rowindex={1}>
            <span role="columnheader">File</span>
            <span role="columnheader" className="num">
              Size
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
                return (
                  <div
                    key={item.key}
                    role="row"
                    aria-rowindex={item.index + 2}
                    data-file-id={row.fileId}
                    data-state={row.state}
                    className="transfer-row"
                    style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                  >
                    <span role="cell" className="path" title={row.path}>
                      {row.path}
                    </span>
                    <span role="cell" className="num">
                      {formatBytes(row.sizeBytes)}
                    </span>
                    <span role="cell" className="state-cell">
                      <FileStateLabel row={row} />
                      {row.state === 'downloading' && (
                        <span className="mini-bar" aria-hidden="true">
                          <span style={{ width: `${percent(row.bytesDone, row.sizeBytes)}%` }} />
                        </span>
                      )}
                    </span>
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

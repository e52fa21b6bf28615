import type { FileRow } from '../stores/sync-view';
import type { FileState } from '../../src-shared/sync-events';
import { percent } from '../format';
import { explainFailure, explainRow, failedRowText } from '../failure-words';

export const FILE_STATE_NAMES: Record<FileState, string> = {
  queued: 'Queued',
  downloading: 'Downloading',
  retrying: 'Retrying',
  verified: 'Verified',
  up_to_date: 'Up to date',
  failed: 'Failed',
};

/** `paused`: the sync is paused, so a transfer in flight holds where it is. */
export function fileStateText(row: FileRow, paused = false): string {
  switch (row.state) {
    case 'downloading':
      return `${paused ? 'Paused' : 'Downloading'} ${percent(row.bytesDone, row.sizeBytes)}%`;
    // The reason in plain words; the technical one is in the row's tooltip and a failed row's details.
    case 'retrying':
      return `Retrying (attempt ${row.attempt ?? '?'})${row.reason ? `: ${explainFailure(row.reason, row.code).summary}` : ''}`;
    case 'failed':
      return failedRowText(row);
    default:
      return FILE_STATE_NAMES[row.state];
  }
}

export function FileStateLabel({ row, paused = false }: { row: FileRow; paused?: boolean }) {
  const detail = row.reason && (row.state === 'retrying' || row.state === 'failed') ? explainRow(row).detail : undefined;
  return (
    <span className={`state state-${row.state}`} title={detail}>
      {fileStateText(row, paused)}
    </span>
  );
}

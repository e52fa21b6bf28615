import type { FileRow } from '../stores/sync';
import type { FileState } from '../../src-shared/sync-events';
import { percent } from '../format';

export const FILE_STATE_NAMES: Record<FileState, string> = {
  queued: 'Queued',
  downloading: 'Downloading',
  retrying: 'Retrying',
  verified: 'Verified',
  up_to_date: 'Up to date',
  failed: 'Failed',
};

export function fileStateText(row: FileRow): string {
  switch (row.state) {
    case 'downloading':
      return `Downloading ${percent(row.bytesDone, row.sizeBytes)}%`;
    case 'retrying':
      return `Retrying (attempt ${row.attempt ?? '?'}${row.reason ? `: ${row.reason}` : ''})`;
    case 'failed':
      return `Failed: ${row.reason ?? 'unknown reason'}`;
    default:
      return FILE_STATE_NAMES[row.state];
  }
}

export function FileStateLabel({ row }: { row: FileRow }) {
  return <span className={`state state-${row.state}`}>{fileStateText(row)}</span>;
}

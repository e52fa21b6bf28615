// The low-space question, asked in the window (never window.confirm):
// - before a Sync starts, when the dataset card can estimate what it will download (the new
//   accepted sets at the average size of the sets on disk) and that exceeds the free space;
// - while a sync runs, when main held it because what it has listed to download exceeds the
//   free space (SyncRunState.lowSpace); main keeps it paused until the answer.
import { ConfirmDialog } from '../recruiter/Dialog';
import type { DatasetCard, SyncRunState } from '../../src-shared/ipc-contract';
import { formatBytes } from '../format';

export interface SpaceEstimate {
  bytes: number;
  newSets: number;
}

/**
 * What a sync will download, estimated before it starts: accepted sets not on disk times the
 * average size of a set on disk. Null when nothing is on disk yet (no average to go by): the
 * running sync asks then, from the sizes it lists.
 */
export function estimateToDownload(card: Pick<DatasetCard, 'setsOnDisk' | 'bytesOnDisk'> | null, acceptedSets: number | undefined): SpaceEstimate | null {
  if (!card || acceptedSets === undefined || !card.setsOnDisk || card.bytesOnDisk === null) return null;
  const newSets = Math.max(0, acceptedSets - card.setsOnDisk);
  return { bytes: Math.round((newSets * card.bytesOnDisk) / card.setsOnDisk), newSets };
}

/** Before starting: "Sync anyway" starts it (and the run does not ask again), "Don't sync" does nothing. */
export function WontFitDialog({ estimate, freeBytes, onSync, onCancel }: { estimate: SpaceEstimate; freeBytes: number; onSync: () => void; onCancel: () => void }) {
  return (
    <ConfirmDialog
      title="Not enough disk space"
      message={
        `This sync will download about ${formatBytes(estimate.bytes)} (${estimate.newSets} new accepted ${estimate.newSets === 1 ? 'set' : 'sets'} at the average size of those on disk), ` +
        `but only ${formatBytes(freeBytes)} is free on the dataset's disk. Sync anyway (it stops when the disk is full; every verified file is kept), or free some space or choose another folder first.`
      }
      cancelLabel="Don't sync"
      confirmLabel="Sync anyway"
      confirmClass="primary"
      onConfirm={onSync}
      onCancel={onCancel}
    />
  );
}

/** While running: main holds the sync until "Download anyway" (resume) or "Cancel sync". */
export function LowSpaceDialog({ shortfall, onContinue, onCancel }: { shortfall: NonNullable<SyncRunState['lowSpace']>; onContinue: () => void; onCancel: () => void }) {
  return (
    <ConfirmDialog
      title="Not enough disk space"
      message={
        `This sync still has ${formatBytes(shortfall.bytesToDownload)} to download, but only ${formatBytes(shortfall.freeBytes)} is free on the dataset's disk. ` +
        'The sync is paused. Download anyway (it stops when the disk is full; every verified file is kept), or cancel it and free some space or choose another folder.'
      }
      cancelLabel="Cancel sync"
      confirmLabel="Download anyway"
      confirmClass="primary"
      onConfirm={onContinue}
      onCancel={onCancel}
    />
  );
}

// Asked when a running sync's bytes still to download outgrow the free space on the dataset's
// disk: main holds the sync (paused) until the user answers here.
import { ConfirmDialog } from '../recruiter/Dialog';
import type { SyncRunState } from '../../src-shared/ipc-contract';
import { formatBytes } from '../format';

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

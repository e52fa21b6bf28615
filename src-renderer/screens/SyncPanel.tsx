import { useEffect, useMemo, useRef, useState } from 'react';
import { useSync } from '../stores/sync';
import { emptySyncView, type FileRow } from '../stores/sync-view';
import type { FileState } from '../../src-shared/sync-events';
import { DatasetCardView } from '../components/DatasetCardView';
import { useDataset } from '../stores/dataset';
import { DatasetFolder, useDatasetFolder } from '../components/DatasetFolder';
import { consentMissingWords } from '../../src-shared/consent-words';
import { ErrorMessage } from '../components/ErrorMessage';
import { plainWarning } from '../failure-words';
import { SyncProgress } from '../components/SyncProgress';
import { TransferTable } from '../components/TransferTable';
import { SyncHistory } from '../components/SyncHistory';
import { VerifyReportView } from '../components/VerifyReportView';
import { VerifyProgressView } from '../components/VerifyProgressView';
import { estimateToDownload, LowSpaceDialog, WontFitDialog } from '../components/LowSpaceDialog';
import { useCollections } from '../stores/collections';
import { SubsetControl, WithdrawnView } from '../components/SubsetAndWithdrawn';
import { mediaCheckWords } from '../../src-shared/media-words';

const EMPTY_VIEW = emptySyncView();

export function SyncPanel({ collectionId }: { collectionId: number }) {
  const view = useSync((s) => s.byCollection[collectionId]) ?? EMPTY_VIEW;
  const history = useSync((s) => s.history[collectionId]);
  const historyError = useSync((s) => s.historyError[collectionId] ?? null);
  const card = useDataset((s) => s.cards[collectionId]?.card ?? null);
  const actionError = useSync((s) => s.actionError[collectionId] ?? null);
  const verify = useSync((s) => s.verify[collectionId]);
  const repaired = useSync((s) => s.runKind[collectionId] === 'repair');
  const { start, cancel, pause, resume, loadHistory, runVerify, cancelVerify, repair } = useSync.getState();
  // No sync starts while the dataset is being verified (here or from another window).
  const verifying = verify?.running === true || view.verifying;
  const acceptedSets = useCollections((s) => s.details[collectionId]?.detail?.sets.accepted);
  const estimate = useMemo(() => estimateToDownload(card, acceptedSets), [card, acceptedSets]);
  // Sync (or Full rescan) asked first because it would not fit; holds which one.
  const [asking, setAsking] = useState<{ full: boolean } | null>(null);
  const requestSync = (full: boolean) => {
    if (estimate && card?.freeBytes != null && estimate.bytes > card.freeBytes) setAsking({ full });
    else void start(collectionId, full);
  };
  const dest = useDatasetFolder(collectionId);
  const syncButton = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const verifyButton = useRef<HTMLButtonElement>(null);
  const cancelVerifyButton = useRef<HTMLButtonElement>(null);
  const verifyRunning = verify?.running === true;

  // Per folder: a newly chosen folder loads its own runs.
  useEffect(() => {
    void loadHistory(collectionId);
  }, [collectionId, dest, loadHistory]);

  // The Sync button disables itself while running: keep focus on the control that replaces it
  // (Cancel), and hand it back to Sync when the run ends, instead of dropping it on the page.
  useEffect(() => {
    const lost = document.activeElement === document.body || document.activeElement === null;
    if (view.running && (lost || document.activeElement === syncButton.current)) cancelButton.current?.focus();
    if (!view.running && (lost || document.activeElement === cancelButton.current)) syncButton.current?.focus();
  }, [view.running]);

  // The same for Verify: it disables itself, so focus goes to Cancel verify, and back when it ends.
  useEffect(() => {
    const lost = document.activeElement === document.body || document.activeElement === null;
    if (verifyRunning && (lost || document.activeElement === verifyButton.current)) cancelVerifyButton.current?.focus();
    if (!verifyRunning && (lost || document.activeElement === cancelVerifyButton.current)) verifyButton.current?.focus();
  }, [verifyRunning]);

  // After a restart no run was watched: the Files table shows the last run's files from disk.
  const fromDisk = view.rows.length === 0 && !view.running;
  const diskRows = useMemo(() => (card?.lastRunFiles ?? []).map((f, i): FileRow => ({ ...f, fileId: -(i + 1), bytesDone: f.sizeBytes })), [card]);
  const rows = fromDisk ? diskRows : view.rows;
  const counts = useMemo(() => (fromDisk ? countByState(diskRows) : view.stateCounts), [fromDisk, diskRows, view.stateCounts]);

  // The rows' source names the table: the run watched here, or the card's rows (a verify's word when it came after the run).
  const afterVerify = fromDisk && card?.lastRunFilesFrom === 'verify';
  const filesTitle = afterVerify ? 'Files as the last Verify found them' : !fromDisk && repaired ? 'Files of the last repair' : 'Files';

  const summary = view.lastSummary;
  return (
    <div className="sync-panel">
      <section className="card" aria-labelledby="sync-title">
        <h3 id="sync-title" className="visually-hidden">
          Sync
        </h3>
        <DatasetFolder collectionId={collectionId} disabled={view.running} />
        {dest && <SubsetControl collectionId={collectionId} disabled={view.running} />}
        <div className="sync-actions">
          <button
            ref={syncButton}
            type="button"
            className="primary big"
            onClick={() => requestSync(false)}
            disabled={view.running || !dest || verifying}
            title={verifying ? 'The dataset is being verified: Sync is available when it ends' : undefined}
          >
            {view.running ? (view.paused ? 'Paused' : 'Syncing…') : 'Sync'}
          </button>
          <button type="button" onClick={() => requestSync(true)} disabled={view.running || !dest || verifying} title="Walk every accepted set, not only changes since the last sync">
            Full rescan
          </button>
          {view.running && (
            // One button whose label flips: focus stays on it (Pause becomes Resume under the keyboard).
            <button type="button" onClick={() => void (view.paused ? resume(collectionId) : pause(collectionId))} aria-pressed={view.paused} data-testid="pause-resume">
              {view.paused ? 'Resume' : 'Pause'}
            </button>
          )}
          {view.running && (
            <button ref={cancelButton} type="button" className="danger" onClick={() => void cancel(collectionId)}>
              Cancel
            </button>
          )}
          <button ref={verifyButton} type="button" onClick={() => void runVerify(collectionId)} disabled={view.running || !dest || verifying} title={view.running ? 'A sync is running: Verify is available when it ends' : undefined}>
            {verifying ? 'Verifying…' : 'Verify'}
          </button>
          {verify?.running && (
            <button ref={cancelVerifyButton} type="button" className="danger" onClick={() => void cancelVerify(collectionId)}>
              Cancel verify
            </button>
          )}
          {!dest && <span className="muted">Choose a dataset folder first.</span>}
        </div>
        {actionError && <ErrorMessage error={actionError} summary="Could not start the sync." />}
        {view.running && view.paused && (
          <p className="tone-warn" role="status" data-testid="sync-paused">
            Paused{view.lowSpace ? ': not enough disk space' : ''}. Nothing is downloaded meanwhile; partial files are kept and Resume goes on where it stopped.
          </p>
        )}
        {asking && estimate && card?.freeBytes != null && (
          <WontFitDialog
            estimate={estimate}
            freeBytes={card.freeBytes}
            onCancel={() => setAsking(null)}
            onSync={() => {
              setAsking(null);
              void start(collectionId, asking.full, true);
            }}
          />
        )}
        {view.running && view.lowSpace && (
          <LowSpaceDialog shortfall={view.lowSpace} onContinue={() => void resume(collectionId)} onCancel={() => void cancel(collectionId)} />
        )}
        {verify?.running && <VerifyProgressView progress={verify.progress ?? null} />}
        {verify?.cancelled && (
          <p className="muted" role="status" data-testid="verify-cancelled">
            Verify cancelled; nothing on disk was changed.
          </p>
        )}
        {/* A last run already said (after a restart or an account switch): no "no sync yet" above it. */}
        {(view.running || view.progress || !summary) && <SyncProgress progress={view.progress} running={view.running} />}
        {view.sets.discovered > 0 && (
          <p className="muted set-tally">
            Sets: {view.sets.discovered} found · {view.sets.complete} complete · {view.sets.failed} failed
            {view.sets.skippedGold > 0 && ` · ${view.sets.skippedGold} gold skipped`}
            {view.sets.notServed > 0 && ` · ${view.sets.notServed} no longer served`}
          </p>
        )}
        {summary && !view.running && (
          <p className={summary.exitCode === 0 && !summary.cancelled && !summary.consentMissingSets ? 'tone-ok' : 'tone-warn'} data-testid="sync-result" role="status">
            {summary.cancelled
              ? 'Cancelled. Partial downloads are kept; the next Sync resumes them.'
              : summary.fatal
                ? `Sync stopped: ${summary.fatal.message}`
                : `${repaired ? 'Last repair' : 'Last sync'}: ${summary.filesDownloaded} downloaded, ${summary.filesUpToDate} up to date, ${summary.filesFailed} failed.`}
            {summary.setsNotServed.length > 0 && ` Sets no longer served: ${summary.setsNotServed.join(', ')}.`}
            {!summary.cancelled && !summary.fatal && mediaCheckWords(summary) && ` ${mediaCheckWords(summary)}.`}
            {!summary.cancelled && !summary.fatal && summary.consentMissingSets ? ` ${consentMissingWords(summary.consentMissingSets)} (participants.csv: consent "missing").` : null}
          </p>
        )}
        {view.warnings.length > 0 && (
          <details className="warnings">
            <summary>{view.warnings.length === 1 ? '1 warning' : `${view.warnings.length} warnings`}</summary>
            <ul>
              {view.warnings.map((w, i) => (
                <li key={i}>{plainWarning(w)}</li>
              ))}
            </ul>
          </details>
        )}
        {verify?.error && <ErrorMessage error={verify.error} summary="Verify failed." />}
        {verify?.report && <VerifyReportView report={verify.report} {...(view.running ? {} : { onRepair: () => void repair(collectionId) })} />}
      </section>
      {dest && (
        <section className="card" aria-labelledby="dataset-title">
          <h3 id="dataset-title">Dataset on disk</h3>
          <DatasetCardView collectionId={collectionId} dest={dest} />
          <WithdrawnView collectionId={collectionId} refresh={summary?.finishedAt} running={view.running || verifying} />
        </section>
      )}
      <section className="card files-card" aria-labelledby="files-title">
        <h3 id="files-title">{filesTitle}</h3>
        {fromDisk && card?.lastRunFilesTruncated && <p className="muted">The first {rows.length} files{afterVerify ? '' : ' of the last sync'}.</p>}
        <TransferTable rows={rows} counts={counts} paused={view.running && view.paused} />
      </section>
      <section className="card" aria-labelledby="history-title">
        <h3 id="history-title">History</h3>
        {historyError ? <ErrorMessage error={historyError} summary="Could not read the sync history." /> : <SyncHistory history={dest ? history : []} />}
      </section>
    </div>
  );
}

function countByState(rows: ReadonlyArray<{ state: FileState }>): Record<FileState, number> {
  const counts: Record<FileState, number> = { queued: 0, downloading: 0, retrying: 0, verified: 0, up_to_date: 0, failed: 0 };
  for (const row of rows) counts[row.state]++;
  return counts;
}

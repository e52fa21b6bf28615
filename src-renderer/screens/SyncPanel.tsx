import { useEffect } from 'react';
import { emptySyncView, useSync } from '../stores/sync';
import { DatasetFolder, useDatasetFolder } from '../components/DatasetFolder';
import { ErrorMessage } from '../components/ErrorMessage';
import { SyncProgress } from '../components/SyncProgress';
import { TransferTable } from '../components/TransferTable';
import { SyncHistory } from '../components/SyncHistory';
import { VerifyReportView } from '../components/VerifyReportView';
import { useCollections } from '../stores/collections';

const EMPTY_VIEW = emptySyncView();

export function SyncPanel({ collectionId }: { collectionId: number }) {
  const view = useSync((s) => s.byCollection[collectionId]) ?? EMPTY_VIEW;
  const history = useSync((s) => s.history[collectionId]);
  const actionError = useSync((s) => s.actionError[collectionId] ?? null);
  const verify = useSync((s) => s.verify[collectionId]);
  const repaired = useSync((s) => s.runKind[collectionId] === 'repair');
  const { start, cancel, loadHistory, runVerify, repair } = useSync.getState();
  const dest = useDatasetFolder(collectionId);
  const loadList = useCollections((s) => s.loadList);

  useEffect(() => {
    void loadHistory(collectionId);
  }, [collectionId, loadHistory]);

  // A finished run changes the list's "last sync" line; refresh it once the run ends.
  const lastFinished = view.lastSummary?.finishedAt;
  useEffect(() => {
    if (lastFinished) void loadList();
  }, [lastFinished, loadList]);

  const summary = view.lastSummary;
  return (
    <div className="sync-panel">
      <section className="card" aria-labelledby="sync-title">
        <h3 id="sync-title" className="visually-hidden">
          Sync
        </h3>
        <DatasetFolder collectionId={collectionId} disabled={view.running} />
        <div className="sync-actions">
          <button type="button" className="primary big" onClick={() => void start(collectionId)} disabled={view.running || !dest}>
            {view.running ? 'Syncing…' : 'Sync'}
          </button>
          <button type="button" onClick={() => void start(collectionId, true)} disabled={view.running || !dest} title="Walk every accepted set, not only changes since the last sync">
            Full rescan
          </button>
          {view.running && (
            <button type="button" className="danger" onClick={() => void cancel(collectionId)}>
              Cancel
            </button>
          )}
          <button type="button" onClick={() => void runVerify(collectionId)} disabled={view.running || !dest || verify?.running}>
            {verify?.running ? 'Verifying…' : 'Verify'}
          </button>
          {!dest && <span className="muted">Choose a dataset folder first.</span>}
        </div>
        {actionError && <ErrorMessage error={actionError} summary="Could not start the sync." />}
        <SyncProgress progress={view.progress} running={view.running} />
        {view.sets.discovered > 0 && (
          <p className="muted set-tally">
            Sets: {view.sets.discovered} found · {view.sets.complete} complete · {view.sets.failed} failed
            {view.sets.skippedGold > 0 && ` · ${view.sets.skippedGold} gold skipped`}
            {view.sets.notServed > 0 && ` · ${view.sets.notServed} no longer served`}
          </p>
        )}
        {summary && !view.running && (
          <p className={summary.exitCode === 0 && !summary.cancelled ? 'tone-ok' : 'tone-warn'} data-testid="sync-result" role="status">
            {summary.cancelled
              ? 'Cancelled. Partial downloads are kept; the next Sync resumes them.'
              : summary.fatal
                ? `Sync stopped: ${summary.fatal.message}`
                : `${repaired ? 'Last repair' : 'Last sync'}: ${summary.filesDownloaded} downloaded, ${summary.filesUpToDate} up to date, ${summary.filesFailed} failed.`}
            {summary.setsNotServed.length > 0 && ` Sets no longer served: ${summary.setsNotServed.join(', ')}.`}
          </p>
        )}
        {view.warnings.length > 0 && (
          <details className="warnings">
            <summary>{view.warnings.length} warnings</summary>
            <ul>
              {view.warnings.map((w, i) => (
                <li key={i}>{w}</li>
              ))}
            </ul>
          </details>
        )}
        {verify?.error && <ErrorMessage error={verify.error} summary="Verify failed." />}
        {verify?.report && <VerifyReportView report={verify.report} {...(view.running ? {} : { onRepair: () => void repair(collectionId) })} />}
      </section>
      <section className="card" aria-labelledby="files-title">
        <h3 id="files-title">{repaired ? 'Files of the last repair' : 'Files'}</h3>
        <TransferTable rows={view.rows} counts={view.stateCounts} />
      </section>
      <section className="card" aria-labelledby="history-title">
        <h3 id="history-title">History</h3>
        <SyncHistory history={history} />
      </section>
    </div>
  );
}

import { useEffect, useState } from 'react';
import type { IpcError } from '../../src-shared/ipc-contract';
import { useDataset } from '../stores/dataset';
import { useSync } from '../stores/sync';
import { emptySyncView } from '../stores/sync-view';
import { formatBytes, formatDateTime } from '../format';
import { invoke } from '../api';
import { ErrorMessage } from './ErrorMessage';
import { estimateToDownload } from './LowSpaceDialog';
import { useCollections } from '../stores/collections';
import type { DatasetCard } from '../../src-shared/ipc-contract';
import { verifyVerdict } from '../../src-shared/verify-verdict';

const EMPTY_VIEW = emptySyncView();

function setList(ids: number[]): string {
  if (ids.length === 0) return 'none';
  const shown = ids.slice(0, 12).join(', ');
  return ids.length > 12 ? `${shown} and ${ids.length - 12} more` : shown;
}

/** Sets listed on page 1 to estimate a first sync's size from (one small request). */
const SAMPLE_SETS = 50;

/**
 * Before a first sync nothing on disk gives an average set size: the first page of accepted sets
 * does (sizes of their files), times the accepted sets. Asked once per folder, only then.
 */
function useFirstPageEstimate(collectionId: number, wanted: boolean, dest: string): { avgSetBytes: number; sampled: number } | null {
  const [sample, setSample] = useState<{ dest: string; avgSetBytes: number; sampled: number } | null>(null);
  useEffect(() => {
    if (!wanted || sample?.dest === dest) return;
    let live = true;
    void invoke('sets:list', { collectionId, status: 'accepted', page: 1, perPage: SAMPLE_SETS }).then((result) => {
      if (!live || !result.ok || result.value.sets.length === 0) return;
      const sets = result.value.sets;
      const bytes = sets.reduce((n, s) => n + s.files.reduce((m, f) => m + f.size_bytes, 0), 0);
      setSample({ dest, avgSetBytes: bytes / sets.length, sampled: sets.length });
    });
    return () => {
      live = false;
    };
  }, [collectionId, wanted, dest, sample?.dest]);
  return sample?.dest === dest ? sample : null;
}

/** Before any sync of this folder: the accepted sets, and their size once the first page gives one. */
function firstSyncText(acceptedSets: number | undefined, sample: { avgSetBytes: number; sampled: number } | null): string {
  if (acceptedSets === undefined) return 'known once the collection is read';
  const sets = acceptedSets === 1 ? '1 accepted set' : `${acceptedSets} accepted sets`;
  if (acceptedSets === 0) return 'nothing: no accepted sets yet';
  if (!sample) return `${sets}; their size is known once the first sets are listed`;
  return `about ${formatBytes(Math.round(sample.avgSetBytes * acceptedSets))} (${sets}, estimated from the first ${sample.sampled} listed)`;
}

/**
 * What is left to download: a running sync's figure (`listing`: of its estimated total while it
 * lists sets), or (`newSets` given) the estimate before one.
 */
function toDownloadText(bytes: number | null, newSets: number | undefined, listing = false): string {
  if (bytes === null) return listing ? 'known once the first sets are listed' : 'known while a sync runs';
  if (listing) return `about ${formatBytes(bytes)} (estimated while sets are listed)`;
  if (newSets === undefined) return formatBytes(bytes);
  if (newSets === 0) return 'no new accepted sets (edited ones are known while a sync runs)';
  return `about ${formatBytes(bytes)} (${newSets} new accepted sets, estimated)`;
}

/** "Last verified", in the verify report's words; a repair or a later sync says what it changed. */
function lastVerifiedText(v: NonNullable<DatasetCard['lastVerified']>): { text: string; ok: boolean } {
  const at = formatDateTime(v.at);
  if (v.missing === undefined || v.changed === undefined) return { text: `${at} · ${v.ok ? 'intact' : 'problems found'}`, ok: v.ok };
  const verdict = verifyVerdict({ missing: v.missing, changed: v.changed, extra: v.extra ?? 0 });
  if (v.repairedAt) return { text: `${at} · problems found, repaired ${formatDateTime(v.repairedAt)}: ${verdict.words}`, ok: true };
  if (!verdict.ok && v.beforeSync) return { text: `${at} · ${verdict.words} before the last sync; verify again to know`, ok: false };
  return { text: `${at} · ${verdict.words}`, ok: verdict.ok };
}

/** The collection's dataset on disk: what is there, how much room is left, the consents, the last changes. */
export function DatasetCardView({ collectionId, dest }: { collectionId: number; dest: string }) {
  const entry = useDataset((s) => s.cards[collectionId]);
  const load = useDataset((s) => s.load);
  const showConsents = useDataset((s) => s.showConsents);
  const view = useSync((s) => s.byCollection[collectionId]) ?? EMPTY_VIEW;
  const verified = useSync((s) => s.verify[collectionId]?.report);
  const [error, setError] = useState<IpcError | null>(null);
  const lastFinished = view.lastSummary?.finishedAt;
  const acceptedSets = useCollections((s) => s.details[collectionId]?.detail?.sets.accepted ?? s.list?.find((c) => c.id === collectionId)?.acceptedSets ?? undefined);
  const card0 = entry?.card;
  // Nothing on disk and no sync running: a first sync, estimated from the service's first page.
  const firstSync = !!card0 && card0.setsOnDisk === 0 && !view.running;
  const sample = useFirstPageEstimate(collectionId, firstSync, dest);

  // Again when the folder changes, a run ends (its notes are written before main says it
  // stopped running) or a verify reports.
  const running = view.running;
  useEffect(() => {
    void load(collectionId);
  }, [collectionId, dest, lastFinished, running, verified, load]);

  const card = entry?.card;
  if (entry?.error) return <ErrorMessage error={entry.error} summary="Could not read the dataset folder." />;
  if (!card) return <p className="muted">Reading the dataset folder…</p>;

  // A running sync knows what is left to fetch (of its estimated total while it lists sets);
  // before it, the new accepted sets at the average size of those on disk are an estimate.
  const p = view.running ? view.progress : null;
  const listing = p?.estimated === true;
  const runTotal = p ? (listing ? p.bytesTotalEstimate : p.bytesTotal) : undefined;
  const estimate = view.running ? null : estimateToDownload(card, acceptedSets);
  const toDownload = p ? (runTotal === null || runTotal === undefined ? null : Math.max(0, runTotal - p.bytesDone)) : (estimate?.bytes ?? null);
  const wontFit = toDownload !== null && card.freeBytes !== null && toDownload > card.freeBytes;
  const changes = card.lastChanges;
  const verifiedText = card.lastVerified && lastVerifiedText(card.lastVerified);

  return (
    <div className="dataset-card" data-testid="dataset-card">
      <dl className="facts">
        <dt>On disk</dt>
        <dd data-testid="card-on-disk">
          {card.filesOnDisk === null || card.bytesOnDisk === null
            ? 'unknown: the engine state (.dataset-sync/state.db) is unreadable'
            : `${card.filesOnDisk} files · ${formatBytes(card.bytesOnDisk)}${view.running ? ' as of the last sync (counted again when this one ends)' : ''}`}
        </dd>
        <dt>Free space</dt>
        <dd data-testid="card-free">{card.freeBytes === null ? 'unknown' : formatBytes(card.freeBytes)}</dd>
        <dt>Still to download</dt>
        <dd data-testid="card-to-download" className={wontFit ? 'tone-bad' : undefined}>
          {firstSync && toDownload === null ? firstSyncText(acceptedSets, sample) : toDownloadText(toDownload, estimate?.newSets, listing)}
          {wontFit && ' — this will not fit on the disk: free some space or choose another folder.'}
        </dd>
        <dt>Last verified</dt>
        <dd data-testid="card-verified" className={verifiedText && !verifiedText.ok ? 'tone-warn' : undefined}>
          {verifiedText ? verifiedText.text : 'never'}
        </dd>
        <dt>Consents folder</dt>
        <dd>
          <span className="mono path" title={card.consentsDir} data-testid="card-consents">
            {card.consentsDir}
          </span>{' '}
          <button type="button" onClick={() => void showConsents(collectionId).then(setError)} aria-label="Show consents folder">
            Show in folder
          </button>
        </dd>
        <dt>Last sync changed</dt>
        <dd data-testid="card-changes">
          {changes
            ? `New sets: ${setList(changes.newSets)} · edited: ${setList(changes.editedSets)} · left accepted: ${setList(changes.leftAccepted)}`
            : 'nothing recorded yet'}
        </dd>
      </dl>
      {error && <ErrorMessage error={error} />}
    </div>
  );
}

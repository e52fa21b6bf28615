import { useEffect, useRef, useState } from 'react';
import { invoke } from '../api';
import { useSync } from '../stores/sync';
import type { IpcError } from '../../src-shared/ipc-contract';
import { useFocusHeading } from '../components/focus-heading';
import { useCollections } from '../stores/collections';
import { useNavigation } from '../stores/navigation';
import { ErrorMessage } from '../components/ErrorMessage';
import { RowActivity } from '../components/Activity';
import { formatBytes, formatDateTime, formatDeadline, formatPrice, humanize } from '../format';
import type { CollectionListItem } from '../../src-shared/ipc-contract';

export function CollectionsScreen() {
  const list = useCollections((s) => s.list);
  const loading = useCollections((s) => s.listLoading);
  const error = useCollections((s) => s.listError);
  const loadList = useCollections((s) => s.loadList);
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusHeading(heading);
  const anyRunning = useSync((s) => Object.values(s.byCollection).some((v) => v.running));
  // A dataset being verified may not be synced meanwhile: Sync all waits until no verify runs.
  const anyVerifying = useSync((s) => Object.values(s.byCollection).some((v) => v.verifying) || Object.values(s.verify).some((v) => v.running));
  const [queued, setQueued] = useState<number | null>(null);
  const [syncAllError, setSyncAllError] = useState<IpcError | null>(null);
  const withFolder = list?.filter((c) => c.dest).length ?? 0;

  const syncAll = async () => {
    setSyncAllError(null);
    const result = await invoke('sync:all', undefined);
    if (result.ok) setQueued(result.value.length);
    else setSyncAllError(result.error);
  };

  useEffect(() => {
    if (list === null) void loadList();
  }, [list, loadList]);

  return (
    <section aria-labelledby="collections-title">
      <div className="screen-head">
        <h2 id="collections-title" ref={heading} tabIndex={-1}>
          Collections
        </h2>
        <button type="button" onClick={() => void loadList()} disabled={loading}>
          {loading ? 'Refreshing…' : 'Refresh'}
        </button>
        <button type="button" onClick={() => void syncAll()} disabled={anyRunning || anyVerifying || withFolder === 0}
          title={anyVerifying ? 'A verify is running: Sync all is available when it ends' : 'Sync every collection that has a dataset folder, one after the other'}
        >
          Sync all
        </button>
      </div>
      {queued !== null && anyRunning && (
        <p className="muted" role="status" data-testid="sync-all-status">
          Syncing {queued} {queued === 1 ? 'collection' : 'collections'} one after the other.
        </p>
      )}
      {syncAllError && <ErrorMessage error={syncAllError} summary="Sync all did not start." />}
      {error && <ErrorMessage error={error} summary="Could not load collections." />}
      {list === null && !error && <p className="muted">Loading collections…</p>}
      {list && list.length === 0 && <p className="muted">This account has no collections yet.</p>}
      {list && list.length > 0 && (
        <ul className="collection-list">
          {list.map((c) => (
            <CollectionCard key={c.id} item={c} />
          ))}
        </ul>
      )}
    </section>
  );
}

function lastSyncText(item: CollectionListItem): { text: string; tone: string } {
  const s = item.lastSync;
  if (!s) return { text: 'Never synced', tone: 'muted' };
  const when = formatDateTime(s.finishedAt);
  if (s.cancelled) return { text: `Cancelled ${when}`, tone: 'warn' };
  if (s.exitCode === 0) return { text: `Synced ${when} · ${s.filesDownloaded} downloaded`, tone: 'ok' };
  if (s.exitCode === 1) return { text: `Finished ${when} with ${s.filesFailed} failed`, tone: 'warn' };
  return { text: `Failed ${when}`, tone: 'bad' };
}

/** Accepted sets (the detail's count) and what the folder holds, where known. */
function setsText(item: CollectionListItem): string {
  const accepted = item.acceptedSets === null ? 'accepted: unknown' : `${item.acceptedSets} accepted`;
  if (!item.onDisk) return accepted;
  return `${accepted} · ${item.onDisk.sets} on disk (${formatBytes(item.onDisk.bytes)})`;
}

function CollectionCard({ item }: { item: CollectionListItem }) {
  const go = useNavigation((s) => s.go);
  const last = lastSyncText(item);
  return (
    <li className="card collection-card" data-collection-id={item.id}>
      <div className="collection-card-head">
        <h3>
          <button type="button" className="link" onClick={() => go({ screen: 'collection', collectionId: item.id, tab: 'overview' })}>
            {item.title}
          </button>
        </h3>
        <span className={`badge status-${item.status}`}>{humanize(item.status)}</span>
      </div>
      <dl className="facts inline">
        <dt>Price per set</dt>
        <dd>{formatPrice(item.price_per_set, item.currency)}</dd>
        <dt>Deadline</dt>
        <dd>{formatDeadline(item.deadline)}</dd>
        <dt>Sets</dt>
        <dd data-testid="list-sets">{setsText(item)}</dd>
        <dt>Dataset folder</dt>
        <dd className={item.dest ? 'mono path' : 'muted'} title={item.dest ?? undefined}>
          {item.dest ?? 'not chosen'}
        </dd>
        <dt>Last sync</dt>
        <dd className={`tone-${last.tone}`} data-testid="last-sync">
          {last.text}
        </dd>
      </dl>
      <RowActivity collectionId={item.id} />
    </li>
  );
}

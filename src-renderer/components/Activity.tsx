// Running syncs, visible from every screen: in the header (with auto-sync's next round) and
// on each collection's row of the list. Uses the runs' progress numbers as the sync store has them.
import { useEffect, useState } from 'react';
import type { AggregateProgress } from '../stores/sync-view';
import { useSync } from '../stores/sync';
import { useCollections } from '../stores/collections';
import { useNavigation } from '../stores/navigation';
import { useSettings } from '../stores/settings';
import { invoke } from '../api';
import { formatDateTime, percent } from '../format';

/** "42%" once totals are known, else the files done so far. */
export function activityText(progress: AggregateProgress | null): string {
  if (!progress) return 'starting…';
  if (progress.fraction !== undefined) return `${percent(progress.fraction, 1)}%`;
  if (progress.bytesTotal > 0) return `${percent(progress.bytesDone, progress.bytesTotal)}%`;
  return `${progress.filesDone} of ${progress.filesTotal} files`;
}

export function RowActivity({ collectionId }: { collectionId: number }) {
  const view = useSync((s) => s.byCollection[collectionId]);
  if (!view?.running) return null;
  return (
    <p className="row-activity" role="status" data-testid="row-activity">
      {!view.paused && <span className="spinner" aria-hidden="true" />} {view.paused ? 'Paused' : 'Syncing'} · {activityText(view.progress)}
    </p>
  );
}

function AutoSyncNext() {
  const minutes = useSettings((s) => s.settings?.autoSyncMinutes ?? null);
  const [next, setNext] = useState<string | null>(null);
  useEffect(() => {
    if (minutes === null) return;
    let live = true;
    const refresh = () => void invoke('autosync:next', undefined).then((r) => live && setNext(r.ok && r.value ? r.value.nextAt : null));
    refresh();
    // The next round moves on after each one; a minute is fine-grained enough for a clock time.
    const timer = setInterval(refresh, 60_000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [minutes]);
  if (minutes === null) return null;
  return (
    <span className="muted autosync" data-testid="autosync-next" title={`Auto-sync every ${minutes} min`}>
      Auto-sync on{next ? ` · next ${formatDateTime(next)}` : ''}
    </span>
  );
}

export function HeaderActivity() {
  const byCollection = useSync((s) => s.byCollection);
  const running = Object.entries(byCollection).filter(([, v]) => v.running);
  const list = useCollections((s) => s.list);
  const go = useNavigation((s) => s.go);
  const setWorkspace = useNavigation((s) => s.setWorkspace);
  return (
    <span className="header-activity">
      {running.map(([id, v]) => {
        const collectionId = Number(id);
        const title = list?.find((c) => c.id === collectionId)?.title ?? `Collection ${collectionId}`;
        return (
          <button
            key={id}
            type="button"
            className="activity-chip"
            data-testid="header-activity"
            onClick={() => {
              setWorkspace('delivery');
              go({ screen: 'collection', collectionId, tab: 'sync' });
            }}
            title={`${v.paused ? 'Paused' : 'Syncing'} ${title}`}
          >
            {!v.paused && <span className="spinner" aria-hidden="true" />}
            <span className="chip-text">
              {v.paused ? 'Paused' : 'Syncing'} {title}
            </span>
            <span className="chip-pct">· {activityText(v.progress)}</span>
          </button>
        );
      })}
      <AutoSyncNext />
    </span>
  );
}

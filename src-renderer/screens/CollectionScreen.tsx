import { useEffect, useRef, type KeyboardEvent } from 'react';
import { useFocusHeading } from '../components/focus-heading';
import { useCollections } from '../stores/collections';
import { useNavigation, type CollectionTab } from '../stores/navigation';
import { useSync } from '../stores/sync';
import { ErrorMessage } from '../components/ErrorMessage';
import { OverviewPanel } from './OverviewPanel';
import { SyncPanel } from './SyncPanel';
import { SetsBrowser } from './SetsBrowser';

const TABS: Array<{ id: CollectionTab; label: string }> = [
  { id: 'overview', label: 'Overview' },
  { id: 'sync', label: 'Sync' },
  { id: 'sets', label: 'Sets' },
];

export function CollectionScreen({ collectionId, tab }: { collectionId: number; tab: CollectionTab }) {
  const entry = useCollections((s) => s.details[collectionId]);
  const listItem = useCollections((s) => s.list?.find((c) => c.id === collectionId));
  const loadDetail = useCollections((s) => s.loadDetail);
  const loadList = useCollections((s) => s.loadList);
  const hasList = useCollections((s) => s.list !== null);
  const go = useNavigation((s) => s.go);
  const refreshState = useSync((s) => s.refreshState);
  const running = useSync((s) => s.byCollection[collectionId]?.running ?? false);
  const paused = useSync((s) => s.byCollection[collectionId]?.paused ?? false);
  const heading = useRef<HTMLHeadingElement>(null);
  // Per collection, not per tab: arrow keys between tabs keep focus on the tabs.
  useFocusHeading(heading, collectionId);

  useEffect(() => {
    void loadDetail(collectionId);
    void refreshState(collectionId);
  }, [collectionId, loadDetail, refreshState]);
  // The dataset folder and title come from the list; load it if the app opened here directly.
  useEffect(() => {
    if (!hasList) void loadList();
  }, [hasList, loadList]);

  const title = entry?.detail?.title ?? listItem?.title ?? `Collection ${collectionId}`;
  const select = (next: CollectionTab) => go({ screen: 'collection', collectionId, tab: next });

  // Arrow keys move between tabs, as the WAI-ARIA tabs pattern expects.
  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>) => {
    if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
    const at = TABS.findIndex((t) => t.id === tab);
    const next = TABS[(at + (e.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length];
    if (next) {
      select(next.id);
      document.getElementById(`tab-${next.id}`)?.focus();
    }
  };

  return (
    <section aria-labelledby="collection-title" className="collection-screen">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <button type="button" className="link" onClick={() => go({ screen: 'collections' })}>
          ← Collections
        </button>
      </nav>
      <div className="screen-head">
        <h2 id="collection-title" ref={heading} tabIndex={-1}>
          {title}
        </h2>
        {running && (
          <span className="badge running" role="status">
            {paused ? 'Paused' : 'Syncing…'}
          </span>
        )}
      </div>
      <div role="tablist" aria-label="Collection sections" className="tabs">
        {TABS.map((t) => (
          <button
            key={t.id}
            id={`tab-${t.id}`}
            type="button"
            role="tab"
            aria-selected={tab === t.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => select(t.id)}
            onKeyDown={onTabKey}
          >
            {t.label}
          </button>
        ))}
      </div>
      {entry?.error && <ErrorMessage error={entry.error} summary="Could not load this collection." />}
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="tab-panel">
        {tab === 'overview' &&
          (entry?.detail ? <OverviewPanel detail={entry.detail} /> : !entry?.error && <p className="muted">Loading collection…</p>)}
        {tab === 'sync' && <SyncPanel collectionId={collectionId} />}
        {tab === 'sets' && <SetsBrowser collectionId={collectionId} detail={entry?.detail ?? null} hasFolder={Boolean(listItem?.dest)} />}
      </div>
    </section>
  );
}

// The Sets tab's "In the dataset" view: the sets synced into the dataset folder, a thumbnail per
// verified file (made by main), a click plays the file in a <video>, "Show in folder" per set and
// per file, filters (quota group, gold, consent, media check, set id) and a page size that fills
// the window. Data: dataset:sets; media: mediaUrl() (the app's protocol or the web bridge).
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { DatasetSetRow, DatasetSetsPage, IpcError, RevealResult } from '../../src-shared/ipc-contract';
import { invoke } from '../api';
import { ErrorMessage } from '../components/ErrorMessage';
import { humanize } from '../format';
import { mediaBase, mediaUrl } from '../media-url';

/** Until a row has been measured: a set with one row of thumbnails. */
const ESTIMATED_ROW_PX = 110;
const MIN_PER_PAGE = 1;
const MAX_PER_PAGE = 50;
/** Thumbnail box in CSS px (16:9; styles.css .thumb-button); main makes them 160 px wide, shown smaller so several sets fit at 800 px. */
const THUMB_W = 96;
const THUMB_H = 54;

interface Filters {
  quotaGroup: string;
  gold: '' | 'gold' | 'not_gold';
  consent: '' | 'signed' | 'missing';
  media: '' | 'ok' | 'problems';
  setId: string;
}

const NO_FILTERS: Filters = { quotaGroup: '', gold: '', consent: '', media: '', setId: '' };

interface Playing {
  setId: number;
  filename: string;
}

/** How many set rows fit between the list's top and the window's bottom (at least one). */
function rowsThatFit(list: HTMLElement | null, rowPx: number): number {
  const top = list ? list.getBoundingClientRect().top + window.scrollY : 200;
  const available = window.innerHeight - Math.max(0, top - window.scrollY) - 56; // the pager below
  return Math.min(MAX_PER_PAGE, Math.max(MIN_PER_PAGE, Math.floor(available / Math.max(40, rowPx))));
}

export function DatasetSets({ collectionId, toolbarStart }: { collectionId: number; toolbarStart: React.ReactNode }) {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const [rowPx, setRowPx] = useState(ESTIMATED_ROW_PX);
  const [perPage, setPerPage] = useState(4);
  const [data, setData] = useState<DatasetSetsPage | null>(null);
  const [error, setError] = useState<IpcError | null>(null);
  const [base, setBase] = useState<string | null>(null);
  const [playing, setPlaying] = useState<Playing | null>(null);
  const [revealed, setRevealed] = useState<RevealResult | null>(null);
  const list = useRef<HTMLDivElement>(null);

  useEffect(() => {
    void mediaBase().then(setBase);
  }, []);

  // Page size from the height left for the list: on mount, on resize, and once a row is measured.
  useLayoutEffect(() => {
    const fit = () => setPerPage(rowsThatFit(list.current, rowPx));
    fit();
    window.addEventListener('resize', fit);
    return () => window.removeEventListener('resize', fit);
  }, [rowPx]);

  useLayoutEffect(() => {
    const first = list.current?.querySelector<HTMLElement>('article.dataset-set');
    if (first) {
      const measured = Math.ceil(first.getBoundingClientRect().height + 8); // + the gap between rows (styles.css)
      if (Math.abs(measured - rowPx) > 8) setRowPx(measured);
    }
  }, [data, rowPx]);

  const load = useCallback(async () => {
    const query = {
      collectionId,
      page,
      perPage,
      ...(filters.quotaGroup ? { quotaGroup: filters.quotaGroup } : {}),
      ...(filters.gold ? { gold: filters.gold } : {}),
      ...(filters.consent ? { consent: filters.consent } : {}),
      ...(filters.media ? { media: filters.media } : {}),
      ...(filters.setId ? { setId: filters.setId } : {}),
    };
    const result = await invoke('dataset:sets', query);
    if (result.ok) {
      setData(result.value);
      setError(null);
      const last = Math.max(1, Math.ceil(result.value.total / perPage));
      if (page > last) setPage(last);
    } else setError(result.error);
  }, [collectionId, page, perPage, filters]);

  useEffect(() => {
    void load();
  }, [load]);

  const change = <K extends keyof Filters>(key: K, value: Filters[K]) => {
    setFilters((f) => ({ ...f, [key]: value }));
    setPage(1);
  };

  const reveal = async (setId: number, filename?: string) => {
    const result = await invoke('dataset:reveal', { collectionId, setId, ...(filename ? { filename } : {}) });
    if (result.ok) setRevealed(result.value);
    else setError(result.error);
  };

  const lastPage = data ? Math.max(1, Math.ceil(data.total / data.perPage)) : 1;

  return (
    <div className="dataset-sets">
      <div className="sets-toolbar" role="group" aria-label="Filters">
        {toolbarStart}
        <label>
          Quota group{' '}
          <select value={filters.quotaGroup} onChange={(e) => change('quotaGroup', e.target.value)}>
            <option value="">Any</option>
            {data?.quotaGroups.map((g) => (
              <option key={g.value} value={g.value}>
                {g.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Gold{' '}
          <select value={filters.gold} onChange={(e) => change('gold', e.target.value as Filters['gold'])}>
            <option value="">Any</option>
            <option value="gold">Gold standard</option>
            <option value="not_gold">Not gold</option>
          </select>
        </label>
        <label>
          Consent{' '}
          <select value={filters.consent} onChange={(e) => change('consent', e.target.value as Filters['consent'])}>
            <option value="">Any</option>
            <option value="signed">All signed</option>
            <option value="missing">A consent missing</option>
          </select>
        </label>
        {data?.mediaChecked && (
          <label>
            Media check{' '}
            <select value={filters.media} onChange={(e) => change('media', e.target.value as Filters['media'])}>
              <option value="">Any</option>
              <option value="ok">All files pass</option>
              <option value="problems">A file breaks a rule</option>
            </select>
          </label>
        )}
        <label>
          Set id{' '}
          <input
            type="search"
            inputMode="numeric"
            size={8}
            value={filters.setId}
            onChange={(e) => change('setId', e.target.value.replace(/\D/g, '').slice(0, 16))}
          />
        </label>
      </div>
      {error && <ErrorMessage error={error} summary="Could not list the dataset's sets." />}
      {revealed && !revealed.shown && (
        <p className="muted small" role="status">
          Show in folder is not available in the browser. The path is <span className="mono">{revealed.path}</span>
        </p>
      )}
      {data && data.setsInDataset === 0 && <p className="muted">No sets in the dataset folder yet: sync first (Sync tab).</p>}
      {data && data.setsInDataset > 0 && data.total === 0 && <p className="muted">No set of the dataset matches these filters.</p>}
      <div className="dataset-set-list" ref={list}>
        {data?.rows.map((row) => (
          <DatasetSetCard key={row.id} row={row} collectionId={collectionId} base={base} onPlay={setPlaying} onReveal={reveal} />
        ))}
      </div>
      <div className="pager" aria-live="polite">
        <button type="button" onClick={() => setPage((p) => Math.max(1, p - 1))} disabled={page <= 1}>
          ← Previous
        </button>
        <span data-testid="dataset-sets-pager">{data ? `Page ${data.page} of ${lastPage} · ${data.total} of ${data.setsInDataset} sets in the dataset` : 'Loading…'}</span>
        <button type="button" onClick={() => setPage((p) => p + 1)} disabled={!data || page >= lastPage}>
          Next →
        </button>
      </div>
      {playing && base && <Player collectionId={collectionId} base={base} playing={playing} onClose={() => setPlaying(null)} />}
    </div>
  );
}

function DatasetSetCard({
  row,
  collectionId,
  base,
  onPlay,
  onReveal,
}: {
  row: DatasetSetRow;
  collectionId: number;
  base: string | null;
  onPlay: (p: Playing) => void;
  onReveal: (setId: number, filename?: string) => void;
}) {
  const missing = row.participants.filter((p) => !p.signed).length;
  const groups = [...new Set(row.participants.map((p) => p.quotaGroup.label))].join(', ');
  return (
    <article className="card set-card dataset-set" aria-labelledby={`dset-${row.id}`} data-set-id={row.id}>
      <header className="set-head">
        <h3 id={`dset-${row.id}`}>Set {row.id}</h3>
        {row.isGold && <span className="badge gold">Gold standard</span>}
        <span className={missing > 0 ? 'badge tone-bad' : 'badge tone-ok'} {...(missing > 0 ? { 'data-testid': 'consent-missing' } : {})}>
          {missing > 0 ? `Consent missing (${missing})` : 'Consents signed'}
        </span>
        {!row.complete && <span className="badge tone-warn">Files not all verified yet</span>}
        <span className="muted small">{groups}</span>
        <button type="button" className="link-button" onClick={() => onReveal(row.id)}>
          Show in folder
        </button>
      </header>
      <ul className="thumbs">
        {row.files.map((f) => {
          const check = f.media;
          return (
            <li key={f.filename} className="thumb" data-file={f.filename}>
              {base ? (
                <button type="button" className="thumb-button" onClick={() => onPlay({ setId: row.id, filename: f.filename })} aria-label={`Play ${f.filename}`}>
                  <img src={mediaUrl(base, 'thumb', collectionId, row.id, f.filename)} alt="" width={THUMB_W} height={THUMB_H} loading="lazy" />
                </button>
              ) : (
                <span className="thumb-missing" />
              )}
              <span className="thumb-caption">
                <span className="muted mono">{f.slotKey}</span> <span className="mono" title={f.filename}>{f.filename}</span>
              </span>
              {check && !check.ok && (
                <span className="badge tone-warn media-badge" title={check.problems.map(humanize).join(', ')}>
                  {check.problems.map(humanize).join(', ')}
                </span>
              )}
              <button type="button" className="link-button small" onClick={() => onReveal(row.id, f.filename)} aria-label={`Show ${f.filename} in folder`}>
                Show in folder
              </button>
            </li>
          );
        })}
      </ul>
    </article>
  );
}

function Player({ collectionId, base, playing, onClose }: { collectionId: number; base: string; playing: Playing; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);
  return (
    <dialog ref={dialog} className="player" aria-label={`Playing ${playing.filename}`} onClose={onClose}>
      <header className="set-head">
        <h3>
          Set {playing.setId} · <span className="mono">{playing.filename}</span>
        </h3>
        <button type="button" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </header>
      <video src={mediaUrl(base, 'video', collectionId, playing.setId, playing.filename)} controls autoPlay muted playsInline />
    </dialog>
  );
}

import { useCallback, useEffect, useState } from 'react';
import type { CollectionDetail, Participant, SetRecord, SetsPage } from '../../src-shared/delivery-api';
import type { IpcError } from '../../src-shared/ipc-contract';
import { invoke } from '../api';
import { ErrorMessage } from '../components/ErrorMessage';
import { formatBytes, formatDateTime, humanize, shortHash } from '../format';
import { useSync } from '../stores/sync';
import type { MediaProblem } from '../stores/sync-view';
import { DatasetSets } from './DatasetSets';

const STATUSES = ['accepted', 'in_review', 'rework', 'rejected', 'in_progress'];
const PER_PAGE = 20;
const DEFAULT_FIELDS = ['age', 'gender', 'ethnicity'];

/** The Status choice that shows the sets in the dataset folder (previews, playback) instead of the service's. */
const IN_DATASET = 'dataset';

export function SetsBrowser({ collectionId, detail, hasFolder }: { collectionId: number; detail: CollectionDetail | null; hasFolder?: boolean }) {
  // With a dataset folder the tab opens on what is in it; the service's lists stay one choice away.
  const [chosen, setChosen] = useState<string | null>(null);
  const status = chosen ?? (hasFolder ? IN_DATASET : 'accepted');
  const setStatus = setChosen;
  const [page, setPage] = useState(1);
  const [data, setData] = useState<SetsPage | null>(null);
  const [error, setError] = useState<IpcError | null>(null);
  const [loading, setLoading] = useState(false);

  const load = useCallback(async () => {
    if (status === IN_DATASET) return;
    setLoading(true);
    const result = await invoke('sets:list', { collectionId, status, page, perPage: PER_PAGE });
    setLoading(false);
    if (result.ok) {
      setData(result.value);
      setError(null);
    } else setError(result.error);
  }, [collectionId, status, page]);

  useEffect(() => {
    void load();
  }, [load]);

  const fields = detail?.spec.participant_fields ?? DEFAULT_FIELDS;
  // The media check of the last syncs (media events): only files with a problem are held.
  const mediaProblems = useSync((st) => st.byCollection[collectionId]?.mediaProblems);
  const lastPage = data ? Math.max(1, Math.ceil(data.total / Math.max(1, data.per_page))) : 1;

  const statusSelect = (
    <label>
      Status{' '}
      <select
        value={status}
        onChange={(e) => {
          setStatus(e.target.value);
          setPage(1);
        }}
      >
        <option value={IN_DATASET}>In the dataset (synced)</option>
        {STATUSES.map((s) => (
          <option key={s} value={s}>
            {humanize(s)}
          </option>
        ))}
      </select>
    </label>
  );

  if (status === IN_DATASET) {
    return (
      <div className="sets-browser">
        <DatasetSets collectionId={collectionId} toolbarStart={statusSelect} />
      </div>
    );
  }

  return (
    <div className="sets-browser">
      <div className="sets-toolbar">
        {statusSelect}
        {status !== 'accepted' && <span className="badge">Metadata only: files of sets that are not accepted are never downloaded</span>}
        <span className="pager" aria-live="polite">
          <button type="button" onClick={() => setPage((p) => Math.max(1, p - 1))} disabled={loading || page <= 1}>
            ← Previous
          </button>
          <span>
            {data ? `Page ${data.page} of ${lastPage} · ${data.total} sets` : loading ? 'Loading…' : ''}
          </span>
          {/* has_more is the API's word on further pages; total/per_page is only a hint. */}
          <button type="button" onClick={() => setPage((p) => p + 1)} disabled={loading || !data?.has_more}>
            Next →
          </button>
        </span>
      </div>
      {error && <ErrorMessage error={error} summary="Could not load sets." />}
      {data && data.sets.length === 0 && <p className="muted">No {humanize(status).toLowerCase()} sets.</p>}
      {data?.sets.map((s) => (
        <SetCard key={s.id} set={s} fields={fields} metadataOnly={s.status !== 'accepted'} media={mediaProblems} />
      ))}
    </div>
  );
}

function fieldValue(p: Participant, field: string): string {
  const value = (p as unknown as Record<string, unknown>)[field];
  if (value === undefined || value === null || value === '') return '–';
  return typeof value === 'string' ? humanize(value) : String(value);
}

function SetCard({ set, fields, metadataOnly, media }: { set: SetRecord; fields: string[]; metadataOnly: boolean; media: Record<string, MediaProblem> | undefined }) {
  const roles = [...set.participants].sort((a, b) => a.role.localeCompare(b.role));
  const mediaOf = (filename: string): MediaProblem | undefined => media?.[`sets/${set.id}/${filename}`];
  const mediaBad = set.files.filter((f) => mediaOf(f.filename)).length;
  return (
    <article className="card set-card" aria-labelledby={`set-${set.id}`} data-set-id={set.id}>
      <header className="set-head">
        <h3 id={`set-${set.id}`}>Set {set.id}</h3>
        <span className={`badge status-${set.status}`}>{humanize(set.status)}</span>
        {set.is_gold && <span className="badge gold">Gold standard</span>}
        {mediaBad > 0 && (
          <span className="badge tone-warn" data-testid="media-badge">
            Media check: {mediaBad === 1 ? '1 file' : `${mediaBad} files`} not as required
          </span>
        )}
        {roles.some((p) => p.consent === null) && <span className="badge tone-bad" data-testid="consent-missing">Consent missing</span>}
        <span className="muted small">
          submitted {formatDateTime(set.submitted_at)} · accepted {formatDateTime(set.accepted_at)} · updated {formatDateTime(set.updated_at)}
        </span>
      </header>
      <div className="table-wrap">
        <table className="data-table">
          <caption className="visually-hidden">Participants of set {set.id}</caption>
          <thead>
            <tr>
              <th scope="col">Role</th>
              <th scope="col">Participant</th>
              {fields.map((f) => (
                <th key={f} scope="col">
                  {humanize(f)}
                </th>
              ))}
              <th scope="col">Quota group</th>
              <th scope="col">Consent</th>
            </tr>
          </thead>
          <tbody>
            {roles.map((p) => (
              <tr key={p.id}>
                <td>{p.role}</td>
                <td className="mono">{p.participant_ref}</td>
                {fields.map((f) => (
                  <td key={f}>{fieldValue(p, f)}</td>
                ))}
                <td>{p.quota_group.label}</td>
                {/* The signer's name is personal data: only presence, version and date are shown. */}
                <td className={p.consent ? 'tone-ok' : 'tone-bad'}>{p.consent ? `Signed v${p.consent.version}, ${formatDateTime(p.consent.signed_at)}` : 'Missing'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="table-wrap">
        <table className="data-table">
          <caption className="visually-hidden">Files of set {set.id}</caption>
          <thead>
            <tr>
              <th scope="col">Slot</th>
              <th scope="col">File</th>
              <th scope="col" className="num">Size</th>
              <th scope="col">SHA-256</th>
              <th scope="col">Media</th>
              <th scope="col">Check</th>
              <th scope="col">Media check</th>
            </tr>
          </thead>
          <tbody>
            {[...set.files]
              .sort((a, b) => a.slot_index - b.slot_index)
              .map((f) => (
                <tr key={f.id}>
                  <td>
                    {f.slot_index} <span className="muted mono">{f.slot_key}</span>
                  </td>
                  <td className="mono">{f.filename}</td>
                  <td className="num">{formatBytes(f.size_bytes)}</td>
                  <td className="mono" title={f.sha256}>
                    {shortHash(f.sha256)}
                  </td>
                  <td>
                    {f.media.width}×{f.media.height}, {f.media.fps} fps, {f.media.duration} s, {f.media.codec}
                  </td>
                  <td className={f.check_status === 'passed' ? 'tone-ok' : 'tone-warn'}>{humanize(f.check_status)}</td>
                  <MediaCell problem={mediaOf(f.filename)} />
                </tr>
              ))}
          </tbody>
        </table>
      </div>
      {metadataOnly && <p className="muted small">Metadata only.</p>}
    </article>
  );
}

/** The dataset's media check of one file, in plain words (media.csv has the machine words). Files checked ok or not synced show a dash. */
function MediaCell({ problem }: { problem: MediaProblem | undefined }) {
  if (!problem) return <td className="muted">–</td>;
  return (
    <td className="tone-warn" data-testid="media-problem" title={`rules: ${problem.rules}; listing: ${problem.listing || '–'}`}>
      {problem.problems.join('. ')}
    </td>
  );
}

// Recommended Data Champs for the job, with the service's score and its reasons.
import { useEffect } from 'react';
import { ErrorMessage } from '../components/ErrorMessage';
import { GuardedButton } from './GuardedButton';
import { formatMoney } from './rules';
import { useMatches } from './stores/matches';

export function MatchesPanel({ jobId }: { jobId: number }) {
  const { matches, loading, error, load } = useMatches();
  const current = useMatches((s) => s.jobId);

  useEffect(() => {
    void load(jobId);
  }, [jobId, load]);

  return (
    <section className="card rc-matches" aria-labelledby="rc-matches-title">
      <div className="screen-head">
        <h3 id="rc-matches-title">Recommended Data Champs</h3>
        <GuardedButton unavailable={loading} onClick={() => void load(jobId)}>
          Refresh
        </GuardedButton>
      </div>
      {error && <ErrorMessage error={error} summary="Matches could not be loaded." />}
      {current === jobId && matches && matches.length === 0 && <p className="muted">No matching Data Champs right now.</p>}
      {current === jobId && matches && matches.length > 0 && (
        <ol className="rc-match-list">
          {matches.map((m) => (
            <li key={m.data_champ.id} className="rc-match" data-champ-id={m.data_champ.id}>
              <div className="rc-score" aria-label={`Score ${m.score} of 100`}>
                <span>{Math.round(m.score)}</span>
                <meter min={0} max={100} value={m.score} aria-hidden="true" />
              </div>
              <div className="rc-match-body">
                <div>
                  <strong>{m.data_champ.name}</strong>
                  {m.data_champ.verified && <span className="badge rc-verified">Verified</span>}
                  <span className="muted small">
                    {' '}
                    · {[m.data_champ.city, m.data_champ.country].filter(Boolean).join(', ')} · {formatMoney(m.data_champ.daily_rate, m.data_champ.currency)}/day
                  </span>
                </div>
                <ul className="rc-reasons">
                  {m.reasons.map((r) => (
                    <li key={r}>{r}</li>
                  ))}
                </ul>
              </div>
            </li>
          ))}
        </ol>
      )}
      {loading && !matches && <p className="muted">Finding matches…</p>}
    </section>
  );
}

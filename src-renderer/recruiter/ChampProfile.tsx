// A Data Champ's public profile (GET /data-champs/:id), opened from a search result, and how
// they stand for one of the organization's jobs. The service has no "match this champ to a job"
// endpoint and no way to invite them: it recommends matches per job (GET /jobs/:id/data-champs/
// matches), so the comparison looks this champ up among a job's recommended matches, and the
// dialog says that Data Champs apply to published jobs themselves.
import { useEffect, useState } from 'react';
import type { IpcError } from '../../src-shared/ipc-contract';
import type { DataChamp, Job, Match } from '../../src-shared/recruiter-ipc-contract';
import { ErrorMessage } from '../components/ErrorMessage';
import { invoke } from '../api';
import { Dialog } from './Dialog';
import { champRateAboveJob, formatMoney, humanize } from './rules';
import { missingScopeText, useMissingScope } from './scopes';
import { useRecruiterView } from './stores/view';

/** As many recommended matches as the service gives for one job (its limit is 1 to 50). */
export const MATCHES_LOOKED_AT = 50;

type Standing = { jobId: number; match: Match | null; count: number } | { jobId: number; error: IpcError };

function JobComparison({ champ, onOpenJob }: { champ: DataChamp; onOpenJob: (jobId: number) => void }) {
  const missing = useMissingScope('jobs:read');
  const [jobs, setJobs] = useState<Job[] | null>(null);
  const [jobsError, setJobsError] = useState<IpcError | null>(null);
  const [jobId, setJobId] = useState<number | null>(null);
  const [standing, setStanding] = useState<Standing | null>(null);

  useEffect(() => {
    if (missing) return;
    let live = true;
    // Closed jobs take no one: only the jobs a Data Champ could still work on are offered.
    void invoke('recruiter:jobs:list', { perPage: 100 }).then((r) => {
      if (!live) return;
      if (r.ok) setJobs(r.value.jobs.filter((j) => j.status !== 'closed'));
      else setJobsError(r.error);
    });
    return () => {
      live = false;
    };
  }, [missing]);

  useEffect(() => {
    if (jobId === null) return;
    let live = true;
    setStanding(null);
    void invoke('recruiter:champs:matches', { jobId, limit: MATCHES_LOOKED_AT }).then((r) => {
      if (!live) return;
      if (r.ok) setStanding({ jobId, match: r.value.find((m) => m.data_champ.id === champ.id) ?? null, count: r.value.length });
      else setStanding({ jobId, error: r.error });
    });
    return () => {
      live = false;
    };
  }, [jobId, champ.id]);

  if (missing) return <p className="muted">{missingScopeText(missing, 'list jobs to compare this Data Champ with')}</p>;
  if (jobsError) return <ErrorMessage error={jobsError} summary="Your jobs could not be listed." />;
  if (!jobs) return <p className="muted">Loading your jobs…</p>;
  if (jobs.length === 0) return <p className="muted">You have no open job to compare with.</p>;

  const job = jobs.find((j) => j.id === jobId) ?? null;
  const rateNote = job ? champRateAboveJob(champ, job) : null;
  return (
    <>
      <label className="field">
        <span>Job</span>
        <select value={jobId ?? ''} onChange={(e) => setJobId(e.target.value === '' ? null : Number(e.target.value))}>
          <option value="">Choose a job…</option>
          {jobs.map((j) => (
            <option key={j.id} value={j.id}>
              {j.title} ({humanize(j.status).toLowerCase()})
            </option>
          ))}
        </select>
      </label>
      <div aria-live="polite" data-testid="champ-standing">
        {job && !standing && <p className="muted">Looking for {champ.name} among the job's recommended matches…</p>}
        {job && standing && 'error' in standing && <ErrorMessage error={standing.error} summary="The job's matches could not be loaded." />}
        {job && standing && !('error' in standing) && standing.match && (
          <div className="rc-standing">
            <p>
              <strong>Score {Math.round(standing.match.score)} of 100</strong> for “{job.title}”:
            </p>
            <ul className="rc-reasons">
              {standing.match.reasons.map((r) => (
                <li key={r}>{r}</li>
              ))}
            </ul>
          </div>
        )}
        {job && standing && !('error' in standing) && !standing.match && (
          <p>
            {champ.name} is not among the {standing.count} Data Champs the service recommends for “{job.title}”.
          </p>
        )}
        {rateNote && (
          <p className="tone-warn" data-testid="champ-rate-warning">
            {rateNote}
          </p>
        )}
      </div>
      {job && (
        <button type="button" onClick={() => onOpenJob(job.id)}>
          Open this job and its matches
        </button>
      )}
    </>
  );
}

export function ChampProfile({ champ: listed, onClose }: { champ: DataChamp; onClose: () => void }) {
  const go = useRecruiterView((s) => s.go);
  const [champ, setChamp] = useState<DataChamp>(listed);
  const [error, setError] = useState<IpcError | null>(null);
  const [loaded, setLoaded] = useState(false);

  useEffect(() => {
    let live = true;
    void invoke('recruiter:champs:get', { dataChampId: listed.id }).then((r) => {
      if (!live) return;
      setLoaded(true);
      if (r.ok) setChamp(r.value);
      else setError(r.error);
    });
    return () => {
      live = false;
    };
  }, [listed.id]);

  return (
    <Dialog title={champ.name} onCancel={onClose}>
      <div className="rc-profile" data-testid="champ-profile" aria-busy={!loaded}>
        {champ.verified && <span className="badge rc-verified">Verified</span>}
        {error && <ErrorMessage error={error} summary="The full profile could not be loaded; this is what the search showed." />}
        {champ.bio && <p className="rc-bio">{champ.bio}</p>}
        <dl className="facts">
          <dt>Location</dt>
          <dd>{[champ.city, champ.region, champ.country].filter(Boolean).join(', ') || '—'}</dd>
          <dt>Availability</dt>
          <dd>{champ.availability ? humanize(champ.availability) : '—'}</dd>
          <dt>Daily rate</dt>
          <dd>{formatMoney(champ.daily_rate, champ.currency)}</dd>
          <dt>Rating</dt>
          <dd>{champ.rating === null ? '—' : champ.rating.toFixed(1)}</dd>
          <dt>Completed jobs</dt>
          <dd>{champ.completed_jobs ?? '—'}</dd>
          <dt>Languages</dt>
          <dd>{champ.languages.length > 0 ? champ.languages.join(', ') : '—'}</dd>
          <dt>Skills</dt>
          <dd className="rc-skills">{champ.skills.length === 0 ? '—' : champ.skills.map((s) => <span key={s} className="badge mono">{s}</span>)}</dd>
        </dl>
        <h4>Compare with one of your jobs</h4>
        <JobComparison
          champ={champ}
          onOpenJob={(jobId) => {
            onClose();
            go({ screen: 'job', jobId });
          }}
        />
        <p className="muted small">The service has no way to invite a Data Champ: they apply to published jobs themselves, and their applications show on the job.</p>
      </div>
      <div className="actions rc-dialog-actions">
        <button type="button" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </Dialog>
  );
}

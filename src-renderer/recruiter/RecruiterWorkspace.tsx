// The recruiter workspace: connect a recruiter key, then jobs (with their applications and
// matches) and Data Champ discovery. Each concern has its own store under ./stores.
import { useEffect } from 'react';
import { ErrorMessage } from '../components/ErrorMessage';
import { ChampSearch } from './ChampSearch';
import { JobForm } from './JobForm';
import { JobPage } from './JobPage';
import { JobsList } from './JobsList';
import { RecruiterConnectCard } from './RecruiterConnectCard';
import { useRecruiterConnection } from './stores/connection';
import { useChamps } from './stores/champs';
import { useJob } from './stores/job';
import { useJobs } from './stores/jobs';
import { useMatches } from './stores/matches';
import { useRecruiterView } from './stores/view';
import './recruiter.css';

function OrganizationBar() {
  const info = useRecruiterConnection((s) => s.info);
  const forget = useRecruiterConnection((s) => s.forget);
  const busy = useRecruiterConnection((s) => s.busy);
  const view = useRecruiterView((s) => s.view);
  const go = useRecruiterView((s) => s.go);
  // Another organization's key may come next: nothing of this one's data stays on screen.
  const resetAll = () => {
    useJobs.getState().reset();
    useJob.getState().clear();
    useMatches.getState().clear();
    useChamps.getState().reset();
  };
  if (!info) return null;
  const onJobs = view.screen !== 'champs';
  return (
    <div className="rc-bar">
      <nav aria-label="Recruiter sections" className="rc-sections">
        <button type="button" aria-current={onJobs ? 'page' : undefined} onClick={() => go({ screen: 'jobs' })}>
          Jobs
        </button>
        <button type="button" aria-current={!onJobs ? 'page' : undefined} onClick={() => go({ screen: 'champs' })}>
          Data Champs
        </button>
      </nav>
      <span className="rc-org" title={`Key ${info.key.name ?? ''} · ${info.key.prefix ?? ''}… · ${info.key.scopes.join(', ')}`}>
        <span className="muted">Organization</span> <strong data-testid="recruiter-org-name">{info.organization.name}</strong>
        <span className="muted small mono"> · key {info.key.prefix}…</span>
        <span className="muted small"> · {info.key.scopes.join(', ')}</span>
      </span>
      <button
        type="button"
        className="danger"
        disabled={busy}
        onClick={() => {
          resetAll();
          go({ screen: 'jobs' });
          void forget();
        }}
      >
        Forget recruiter key
      </button>
    </div>
  );
}

export function RecruiterWorkspace() {
  const status = useRecruiterConnection((s) => s.status);
  const loadError = useRecruiterConnection((s) => s.loadError);
  const load = useRecruiterConnection((s) => s.load);
  const view = useRecruiterView((s) => s.view);

  useEffect(() => {
    if (status === 'unknown') void load();
  }, [status, load]);

  if (status === 'unknown' || status === 'checking') return <p className="muted">Checking the recruiter connection…</p>;
  if (status === 'disconnected') {
    return (
      <div className="rc-connect-screen">
        {/* A stored key the service no longer accepts: say so above the form. */}
        {loadError && <ErrorMessage error={loadError} summary={loadError.kind === 'auth' ? 'The stored recruiter key no longer works.' : 'The recruiter connection could not be checked.'} />}
        <RecruiterConnectCard />
      </div>
    );
  }

  let body;
  switch (view.screen) {
    case 'newJob':
      body = <JobForm jobId={null} />;
      break;
    case 'editJob':
      body = <JobForm jobId={view.jobId} />;
      break;
    case 'job':
      body = <JobPage jobId={view.jobId} />;
      break;
    case 'champs':
      body = <ChampSearch />;
      break;
    default:
      body = <JobsList />;
  }
  return (
    <section className="rc-workspace" aria-label="Recruiter">
      <OrganizationBar />
      {body}
    </section>
  );
}

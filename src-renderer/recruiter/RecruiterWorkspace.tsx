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
import { useRecruiterView, type RecruiterView } from './stores/view';
import { GuardedButton } from './GuardedButton';
import { ScopeNote } from './scopes';
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
  const onJobs = viewShown(view, info.key.scopes).screen !== 'champs';
  return (
    <div className="rc-bar">
      <nav aria-label="Recruiter sections" className="rc-sections">
        <GuardedButton scope="jobs:read" noteId="rc-note-jobs-read" aria-current={onJobs ? 'page' : undefined} onClick={() => go({ screen: 'jobs' })}>
          Jobs
        </GuardedButton>
        <GuardedButton scope="data_champs:read" noteId="rc-note-champs-read" aria-current={!onJobs ? 'page' : undefined} onClick={() => go({ screen: 'champs' })}>
          Data Champs
        </GuardedButton>
      </nav>
      <span className="rc-org" title={`Key ${info.key.name ?? ''} · ${info.key.prefix ?? ''}… · ${info.key.scopes.join(', ')}`}>
        <span className="muted">Organization</span> <strong data-testid="recruiter-org-name">{info.organization.name}</strong>
        <span className="muted small mono"> · key {info.key.prefix}…</span>
        <span className="muted small"> · {info.key.scopes.join(', ')}</span>
      </span>
      <GuardedButton
        className="danger"
        unavailable={busy}
        onClick={() => {
          resetAll();
          go({ screen: 'jobs' });
          void forget();
        }}
      >
        Forget recruiter key
      </GuardedButton>
    </div>
  );
}

/** The key's limits, said once under the bar; the controls they disable point here. */
function ScopeNotes() {
  return (
    <div className="rc-scope-notes">
      <ScopeNote id="rc-note-jobs-read" scope="jobs:read" action="list and open jobs" />
      <ScopeNote id="rc-note-jobs-write" scope="jobs:write" action="create, edit, publish or close jobs and act on applications" />
      <ScopeNote id="rc-note-champs-read" scope="data_champs:read" action="search Data Champs or see recommended matches" />
    </div>
  );
}

/** A key without jobs:read can still discover Data Champs, and one without data_champs:read still has its jobs. */
function viewShown(view: RecruiterView, scopes: readonly string[]): RecruiterView {
  if (view.screen === 'champs') return scopes.includes('data_champs:read') || !scopes.includes('jobs:read') ? view : { screen: 'jobs' };
  return scopes.includes('jobs:read') || !scopes.includes('data_champs:read') ? view : { screen: 'champs' };
}

const NO_SCOPES: readonly string[] = [];

export function RecruiterWorkspace() {
  const status = useRecruiterConnection((s) => s.status);
  const loadError = useRecruiterConnection((s) => s.loadError);
  const load = useRecruiterConnection((s) => s.load);
  const view = useRecruiterView((s) => s.view);
  const scopes = useRecruiterConnection((s) => s.info?.key.scopes ?? NO_SCOPES);

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
  const shown = viewShown(view, scopes);
  switch (shown.screen) {
    case 'newJob':
      body = <JobForm jobId={null} />;
      break;
    case 'editJob':
      body = <JobForm jobId={shown.jobId} />;
      break;
    case 'job':
      body = <JobPage jobId={shown.jobId} />;
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
      <ScopeNotes />
      {body}
    </section>
  );
}

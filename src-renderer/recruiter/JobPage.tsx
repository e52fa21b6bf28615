// One job: facts, state moves, its applications and recommended matches.
import { useEffect } from 'react';
import { ErrorMessage } from '../components/ErrorMessage';
import { ApplicationsTable } from './ApplicationsTable';
import { JobStatusBadge } from './Badges';
import { useFocusOnAppear } from './focus';
import { JobLifecycle } from './JobLifecycle';
import { MatchesPanel } from './MatchesPanel';
import { formatMoney, humanize } from './rules';
import { useJob } from './stores/job';
import { useRecruiterConnection } from './stores/connection';
import { useRecruiterView } from './stores/view';

export function JobPage({ jobId }: { jobId: number }) {
  const { job, loading, error, actionError, notice, load } = useJob();
  const headingRef = useFocusOnAppear<HTMLHeadingElement>();
  const go = useRecruiterView((s) => s.go);
  const canDiscover = useRecruiterConnection((s) => s.info?.key.scopes.includes('data_champs:read') ?? false);

  useEffect(() => {
    void load(jobId);
  }, [jobId, load]);

  const back = (
    <button type="button" className="link breadcrumb" onClick={() => go({ screen: 'jobs' })}>
      ← Jobs
    </button>
  );
  if (error) return <>{back}<ErrorMessage error={error} summary="The job could not be loaded." /></>;
  if (!job || job.id !== jobId) return <>{back}<p className="muted">{loading ? 'Loading the job…' : ''}</p></>;

  const hired = job.applications.filter((a) => a.status === 'hired' || a.status === 'work_submitted' || a.status === 'work_approved').length;
  return (
    <div className="rc-job-page">
      {back}
      <section className="card" aria-labelledby="rc-job-title">
        <div className="screen-head">
          <h2 id="rc-job-title" tabIndex={-1} ref={headingRef}>
            {job.title} <JobStatusBadge status={job.status} />
          </h2>
        </div>
        <dl className="facts inline rc-job-facts">
          <dt>Type</dt>
          <dd>{humanize(job.job_type)}</dd>
          <dt>Location</dt>
          <dd>{job.location_type ? humanize(job.location_type) : '—'}</dd>
          <dt>Rate</dt>
          <dd>
            {formatMoney(job.rate, job.currency)}
            {job.rate_type ? ` / ${job.rate_type}` : ''}
          </dd>
          <dt>Positions</dt>
          <dd>
            {hired} of {job.number_of_positions} filled
          </dd>
          <dt>Skills</dt>
          <dd className="rc-skills">
            {job.required_skills.length === 0 ? '—' : job.required_skills.map((s) => <span key={s} className="badge mono">{s}</span>)}
          </dd>
        </dl>
        <p className="rc-description">{job.description}</p>
        <JobLifecycle job={job} />
        {/* Always present, so screen readers announce each new notice; focusable as the stand-in
            when an action removed the control that started it. */}
        <p id="rc-job-notice" className={notice ? 'rc-notice' : undefined} role="status" tabIndex={-1} hidden={!notice}>
          {notice}
        </p>
        {actionError && <ErrorMessage error={actionError} summary="That did not work." />}
      </section>
      <div className={canDiscover ? 'rc-job-columns' : undefined}>
        <section className="card" aria-labelledby="rc-apps-title">
          <h3 id="rc-apps-title">Applications ({job.applications.length})</h3>
          <ApplicationsTable job={job} />
        </section>
        {canDiscover && <MatchesPanel jobId={job.id} />}
      </div>
    </div>
  );
}

import { useEffect } from 'react';
import { ErrorMessage } from '../components/ErrorMessage';
import { JobStatusBadge } from './Badges';
import { useFocusOnAppear } from './focus';
import { GuardedButton } from './GuardedButton';
import { formatMoney, humanize } from './rules';
import { JOBS_PER_PAGE, useJobs } from './stores/jobs';
import { useRecruiterView } from './stores/view';

const STATUS_FILTERS = [
  { value: '', label: 'All states' },
  { value: 'draft', label: 'Draft' },
  { value: 'active', label: 'Active' },
  { value: 'paused', label: 'Paused' },
  { value: 'closed', label: 'Closed' },
];

export function JobsList() {
  const { status, page, data, loading, error, load, setStatus, setPage } = useJobs();
  const go = useRecruiterView((s) => s.go);
  const headingRef = useFocusOnAppear<HTMLHeadingElement>();

  useEffect(() => {
    void load();
  }, [load]);

  const lastPage = data ? Math.max(1, Math.ceil(data.total / JOBS_PER_PAGE)) : 1;
  return (
    <div className="card">
      <div className="screen-head">
        <h2 tabIndex={-1} ref={headingRef}>
          Jobs
        </h2>
        <div className="rc-toolbar">
          <label className="rc-inline-field">
            <span>Job state</span>
            <select value={status} onChange={(e) => void setStatus(e.target.value)}>
              {STATUS_FILTERS.map((f) => (
                <option key={f.value} value={f.value}>
                  {f.label}
                </option>
              ))}
            </select>
          </label>
          <GuardedButton scope="jobs:write" noteId="rc-note-jobs-write" className="primary" onClick={() => go({ screen: 'newJob' })}>
            New job
          </GuardedButton>
        </div>
      </div>
      {error && <ErrorMessage error={error} summary="The jobs could not be loaded." />}
      {data && data.jobs.length === 0 && <p className="muted">{status ? `No ${status} jobs.` : 'No jobs yet. Create the first one with New job.'}</p>}
      {data && data.jobs.length > 0 && (
        <div className="table-wrap">
          <table className="data-table rc-jobs" aria-busy={loading}>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">State</th>
                <th scope="col">Type</th>
                <th scope="col">Location</th>
                <th scope="col" className="num">Rate</th>
                <th scope="col" className="num">Positions</th>
                <th scope="col" className="num">Applications</th>
              </tr>
            </thead>
            <tbody>
              {data.jobs.map((job) => (
                <tr key={job.id} data-job-id={job.id}>
                  <td className="rc-title-cell">
                    <button type="button" className="link" onClick={() => go({ screen: 'job', jobId: job.id })}>
                      {job.title}
                    </button>
                  </td>
                  <td>
                    <JobStatusBadge status={job.status} />
                  </td>
                  <td>{humanize(job.job_type)}</td>
                  <td>{job.location_type ? humanize(job.location_type) : '—'}</td>
                  <td className="num">
                    {formatMoney(job.rate, job.currency)}
                    {job.rate_type ? <span className="muted"> / {job.rate_type}</span> : null}
                  </td>
                  <td className="num">{job.number_of_positions}</td>
                  <td className="num" data-testid="job-applications">{job.applications_count ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && data.total > JOBS_PER_PAGE && (
        <div className="pager rc-pager">
          <GuardedButton unavailable={page <= 1 || loading} onClick={() => void setPage(page - 1)}>
            ← Previous
          </GuardedButton>
          <span aria-live="polite">
            Page {page} of {lastPage}
          </span>
          <GuardedButton unavailable={!data.has_more || loading} onClick={() => void setPage(page + 1)}>
            Next →
          </GuardedButton>
        </div>
      )}
      {!data && loading && <p className="muted">Loading jobs…</p>}
    </div>
  );
}

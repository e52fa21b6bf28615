// A job's applications with the actions each one allows; rejecting asks for an optional reason.
import { useState, type FormEvent } from 'react';
import type { Application, JobDetail } from '../../src-shared/recruiter-ipc-contract';
import { ApplicationStatusBadge } from './Badges';
import { Dialog } from './Dialog';
import { formatMoney, legalApplicationActions, type ApplicationAction } from './rules';
import { useJob } from './stores/job';

const ACTION_LABELS: Record<ApplicationAction, string> = {
  shortlist: 'Shortlist',
  unshortlist: 'Unshortlist',
  hire: 'Hire',
  reject: 'Reject…',
  approveWork: 'Approve work',
};

function applicantName(a: Application): string {
  return a.data_champ?.name ?? (a.data_champ_id !== null ? `Data Champ #${a.data_champ_id}` : `Application #${a.id}`);
}

function RejectDialog({ application, onDone }: { application: Application; onDone: () => void }) {
  const act = useJob((s) => s.act);
  const busy = useJob((s) => s.busy);
  const [reason, setReason] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await act(application.job_id, application.id, 'reject', reason.trim() || undefined);
    onDone();
  };
  return (
    <Dialog title={`Reject ${applicantName(application)}?`} onCancel={onDone}>
      <form onSubmit={submit}>
        <label className="field">
          <span>Reason (optional, shared with the Data Champ)</span>
          <textarea value={reason} onChange={(e) => setReason(e.target.value)} rows={3} maxLength={2000} autoFocus />
        </label>
        <div className="actions rc-dialog-actions">
          <button type="button" onClick={onDone}>
            Cancel
          </button>
          <button type="submit" className="danger" disabled={busy !== null}>
            Reject application
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function ApplicationsTable({ job }: { job: JobDetail }) {
  const act = useJob((s) => s.act);
  const busy = useJob((s) => s.busy);
  const [rejecting, setRejecting] = useState<Application | null>(null);

  if (job.applications.length === 0) return <p className="muted">No applications yet.</p>;
  return (
    <div className="table-wrap">
      <table className="data-table rc-applications">
        <thead>
          <tr>
            <th scope="col">Data Champ</th>
            <th scope="col">Status</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {job.applications.map((a) => {
            const champ = a.data_champ;
            return (
              <tr key={a.id} data-application-id={a.id} data-status={a.status}>
                <td>
                  {applicantName(a)}
                  {champ?.verified && <span className="badge rc-verified">Verified</span>}
                  {champ && (
                    <div className="muted small">
                      {[champ.city, champ.country].filter(Boolean).join(', ') || '—'} · {formatMoney(champ.daily_rate, champ.currency)}/day
                    </div>
                  )}
                </td>
                <td>
                  <ApplicationStatusBadge status={a.status} />
                  {a.rejection_reason && (
                    <div className="muted small rc-reason" title={a.rejection_reason}>
                      {a.rejection_reason}
                    </div>
                  )}
                </td>
                <td>
                  <div className="rc-row-actions">
                    {legalApplicationActions(a.status, job.status).map((action) => (
                      <button
                        key={action}
                        type="button"
                        className={action === 'hire' || action === 'approveWork' ? 'primary' : action === 'reject' ? 'danger' : undefined}
                        disabled={busy !== null}
                        aria-label={`${ACTION_LABELS[action].replace('…', '')} ${applicantName(a)}`}
                        onClick={() => (action === 'reject' ? setRejecting(a) : void act(job.id, a.id, action))}
                      >
                        {busy === `${action}:${a.id}` ? '…' : ACTION_LABELS[action]}
                      </button>
                    ))}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {rejecting && <RejectDialog application={rejecting} onDone={() => setRejecting(null)} />}
    </div>
  );
}

// A job's applications with the actions each one allows; hiring and approving work ask first,
// rejecting asks for an optional reason, and what was done shows in the job's notice.
import { useRef, useState, type FormEvent } from 'react';
import type { Application, JobDetail } from '../../src-shared/recruiter-ipc-contract';
import { applicantName, ApproveWorkDialog } from './ApproveWorkDialog';
import { ApplicationStatusBadge } from './Badges';
import { ConfirmDialog, Dialog } from './Dialog';
import { keepingFocus } from './focus';
import { GuardedButton } from './GuardedButton';
import { champRateAboveJob, formatMoney, legalApplicationActions, type ApplicationAction } from './rules';
import { useJob } from './stores/job';

const ACTION_LABELS: Record<ApplicationAction, string> = {
  shortlist: 'Shortlist',
  unshortlist: 'Unshortlist',
  hire: 'Hire',
  reject: 'Reject…',
  approveWork: 'Approve work',
};


const ACTION_DONE: Record<ApplicationAction, string> = {
  shortlist: 'Shortlisted',
  unshortlist: 'Moved back to pending:',
  hire: 'Hired',
  reject: 'Rejected',
  approveWork: 'Approved the work of',
};

function RejectDialog({ application, onReject, onCancel }: { application: Application; onReject: (reason: string | undefined) => void; onCancel: () => void }) {
  const busy = useJob((s) => s.busy);
  const [reason, setReason] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onReject(reason.trim() || undefined);
  };
  return (
    <Dialog title={`Reject ${applicantName(application)}?`} onCancel={onCancel}>
      <form onSubmit={submit}>
        <label className="field">
          <span>Reason (optional, shared with the Data Champ)</span>
          <textarea value={reason} onChange={(e) => setReason(e.target.value)} rows={3} maxLength={2000} autoFocus />
        </label>
        <div className="actions rc-dialog-actions">
          <button type="button" onClick={onCancel}>
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

/** Said before hiring: see champRateAboveJob. */
export function rateAboveJob(application: Application, job: JobDetail): string | null {
  return champRateAboveJob(application.data_champ, job);
}

/** Hiring asks first: the Data Champ is told at once and a position is taken. */
function HireDialog({ application, job, onHire, onCancel }: { application: Application; job: JobDetail; onHire: () => void; onCancel: () => void }) {
  const filled = job.applications.filter((a) => a.status === 'hired' || a.status === 'work_submitted' || a.status === 'work_approved').length;
  return (
    <ConfirmDialog
      title={`Hire ${applicantName(application)}?`}
      message={`${rateAboveJob(application, job) ?? ''} ${applicantName(application)} is told at once that they are hired for “${job.title}” and can start work. ${filled + 1} of ${job.number_of_positions} positions will be filled.`.trim()}
      confirmLabel="Hire"
      confirmClass="primary"
      onConfirm={onHire}
      onCancel={onCancel}
    />
  );
}

type Asking = { action: 'hire' | 'reject' | 'approveWork'; application: Application; opener: HTMLElement };

export function ApplicationsTable({ job }: { job: JobDetail }) {
  const act = useJob((s) => s.act);
  const say = useJob((s) => s.say);
  const busy = useJob((s) => s.busy);
  const [asking, setAsking] = useState<Asking | null>(null);
  const table = useRef<HTMLTableElement>(null);

  // An action can remove its own button (a hired applicant has no Hire): focus then goes to
  // the row's first remaining action, or to the notice that says what happened.
  const perform = (a: Application, action: ApplicationAction, start: HTMLElement | null, reason?: string) =>
    keepingFocus(
      start,
      async () => {
        if (await act(job.id, a.id, action, reason)) say(`${ACTION_DONE[action]} ${applicantName(a)}.`);
      },
      () => [table.current?.querySelector<HTMLElement>(`tr[data-application-id="${a.id}"] .rc-row-actions button`), document.getElementById('rc-job-notice')],
    );

  const finish = (run: (asked: Asking) => void) => () => {
    const asked = asking;
    setAsking(null);
    if (asked) run(asked);
  };

  if (job.applications.length === 0) return <p className="muted">No applications yet.</p>;
  return (
    <div className="table-wrap">
      <table className="data-table rc-applications" ref={table}>
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
                      <GuardedButton
                        key={action}
                        scope="jobs:write"
                        noteId="rc-note-jobs-write"
                        className={action === 'hire' || action === 'approveWork' ? 'primary' : action === 'reject' ? 'danger' : undefined}
                        unavailable={busy !== null}
                        aria-label={`${ACTION_LABELS[action].replace('…', '')} ${applicantName(a)}`}
                        onClick={(e) => {
                          const opener = e.currentTarget;
                          if (action === 'hire' || action === 'reject' || action === 'approveWork') setAsking({ action, application: a, opener });
                          else void perform(a, action, opener);
                        }}
                      >
                        {busy === `${action}:${a.id}` ? '…' : ACTION_LABELS[action]}
                      </GuardedButton>
                    ))}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {asking?.action === 'hire' && (
        <HireDialog application={asking.application} job={job} onCancel={() => setAsking(null)} onHire={finish((asked) => void perform(asked.application, 'hire', asked.opener))} />
      )}
      {asking?.action === 'approveWork' && (
        <ApproveWorkDialog
          application={asking.application}
          job={job}
          onCancel={() => setAsking(null)}
          onApprove={finish((asked) => void perform(asked.application, 'approveWork', asked.opener))}
        />
      )}
      {asking?.action === 'reject' && (
        <RejectDialog
          application={asking.application}
          onCancel={() => setAsking(null)}
          onReject={(reason) => finish((asked) => void perform(asked.application, 'reject', asked.opener, reason))()}
        />
      )}
    </div>
  );
}

// "Approve work" asks first and shows what the service knows about the submission. The
// recruiter API (docs/contracts.md §6) has no field for submitted work: no files, links or
// notes, only the application record. The dialog says so in plain words instead of implying
// that there was something to look at, and shows the application as the service gives it now.
import { useEffect, useState } from 'react';
import type { IpcError } from '../../src-shared/ipc-contract';
import type { Application, JobDetail } from '../../src-shared/recruiter-ipc-contract';
import { ErrorMessage } from '../components/ErrorMessage';
import { invoke } from '../api';
import { formatDateTime } from '../format';
import { Dialog } from './Dialog';
import { formatMoney, humanize } from './rules';

export function applicantName(a: Application): string {
  return a.data_champ?.name ?? (a.data_champ_id !== null ? `Data Champ #${a.data_champ_id}` : `Application #${a.id}`);
}

export function ApproveWorkDialog({ application, job, onApprove, onCancel }: { application: Application; job: JobDetail; onApprove: () => void; onCancel: () => void }) {
  const [fresh, setFresh] = useState<Application | null>(null);
  const [error, setError] = useState<IpcError | null>(null);

  // The row may be minutes old: read the application again, so what is shown is what is approved.
  useEffect(() => {
    let live = true;
    void invoke('recruiter:applications:get', { jobId: job.id, applicationId: application.id }).then((r) => {
      if (!live) return;
      if (r.ok) setFresh(r.value);
      else setError(r.error);
    });
    return () => {
      live = false;
    };
  }, [job.id, application.id]);

  const shown = fresh ?? application;
  const name = applicantName(shown);
  const stillSubmitted = shown.status === 'work_submitted';
  return (
    <Dialog title={`Approve the work of ${name}?`} onCancel={onCancel} describedBy="rc-approve-nothing">
      <p id="rc-approve-nothing" className="rc-approve-nothing" data-testid="approve-no-submission">
        The recruiter service provides no submitted work to review: it sends no files, links or notes with a submission, only that {name} marked the work as submitted. Check the
        work where it was delivered before approving.
      </p>
      <dl className="facts rc-approve-facts" data-testid="approve-facts" aria-busy={!fresh && !error}>
        <dt>Job</dt>
        <dd>{job.title}</dd>
        <dt>Status</dt>
        <dd>{humanize(shown.status)}</dd>
        <dt>Status changed</dt>
        <dd>{shown.updated_at ? formatDateTime(shown.updated_at) : '—'}</dd>
        <dt>Applied</dt>
        <dd>{shown.applied_at ? formatDateTime(shown.applied_at) : '—'}</dd>
        <dt>Proposed rate</dt>
        <dd>{shown.proposed_rate ? formatMoney(shown.proposed_rate, job.currency) : '—'}</dd>
        {shown.cover_letter && (
          <>
            <dt>Cover letter</dt>
            <dd className="rc-cover-letter">{shown.cover_letter}</dd>
          </>
        )}
      </dl>
      {error && <ErrorMessage error={error} summary="The application could not be read again; the facts above are from the list." />}
      {fresh && !stillSubmitted && (
        <p className="rc-field-error" role="alert">
          This application is now {humanize(shown.status).toLowerCase()}: there is no submitted work to approve.
        </p>
      )}
      <div className="actions rc-dialog-actions">
        <button type="button" onClick={onCancel} autoFocus>
          Cancel
        </button>
        <button type="button" className="primary" onClick={onApprove} disabled={fresh !== null && !stillSubmitted}>
          Approve work
        </button>
      </div>
    </Dialog>
  );
}

import { APPLICATION_STATUS_LABELS, JOB_STATUS_LABELS, statusLabel } from './rules';

export function JobStatusBadge({ status }: { status: string }) {
  return (
    <span className={`badge rc-status rc-job-${status}`} data-status={status}>
      {statusLabel(JOB_STATUS_LABELS, status)}
    </span>
  );
}

export function ApplicationStatusBadge({ status }: { status: string }) {
  return (
    <span className={`badge rc-status rc-app-${status}`} data-status={status}>
      {statusLabel(APPLICATION_STATUS_LABELS, status)}
    </span>
  );
}

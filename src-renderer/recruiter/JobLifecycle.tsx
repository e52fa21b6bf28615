// The job's state moves, each offered only where the service allows it; closing asks first
// because it is permanent.
import { useState } from 'react';
import type { JobDetail } from '../../src-shared/recruiter-ipc-contract';
import { ConfirmDialog } from './Dialog';
import { canEditJob, legalJobMoves, type JobMove } from './rules';
import { useJob } from './stores/job';
import { useJobs } from './stores/jobs';
import { useRecruiterView } from './stores/view';

const MOVE_LABELS: Record<JobMove, string> = { publish: 'Publish', pause: 'Pause', resume: 'Resume', close: 'Close job…' };

export function JobLifecycle({ job }: { job: JobDetail }) {
  const move = useJob((s) => s.move);
  const busy = useJob((s) => s.busy);
  const reloadJobs = useJobs((s) => s.load);
  const go = useRecruiterView((s) => s.go);
  const [confirmClose, setConfirmClose] = useState(false);

  const run = async (m: JobMove) => {
    if (await move(job.id, m)) void reloadJobs();
  };

  return (
    <div className="actions rc-lifecycle" role="group" aria-label="Job actions">
      {legalJobMoves(job.status).map((m) => (
        <button
          key={m}
          type="button"
          className={m === 'close' ? 'danger' : m === 'publish' ? 'primary' : undefined}
          disabled={busy !== null}
          onClick={() => (m === 'close' ? setConfirmClose(true) : void run(m))}
        >
          {busy === m ? `${MOVE_LABELS[m].replace('…', '')}…` : MOVE_LABELS[m]}
        </button>
      ))}
      {canEditJob(job.status) && (
        <button type="button" disabled={busy !== null} onClick={() => go({ screen: 'editJob', jobId: job.id })}>
          Edit
        </button>
      )}
      {confirmClose && (
        <ConfirmDialog
          title={`Close “${job.title}”?`}
          message="Closing is permanent: the job disappears for Data Champs and cannot be reopened, and its applications can no longer change."
          confirmLabel="Close job"
          onCancel={() => setConfirmClose(false)}
          onConfirm={() => {
            setConfirmClose(false);
            void run('close');
          }}
        />
      )}
    </div>
  );
}

// The job's state moves, each offered only where the service allows it (and disabled, with the
// reason, when the key lacks jobs:write); closing asks first because it is permanent.
import { useRef, useState } from 'react';
import type { JobDetail } from '../../src-shared/recruiter-ipc-contract';
import { ConfirmDialog } from './Dialog';
import { keepingFocus } from './focus';
import { canEditJob, legalJobMoves, type JobMove } from './rules';
import { GuardedButton } from './GuardedButton';
import { useJob } from './stores/job';
import { useJobs } from './stores/jobs';
import { useRecruiterView } from './stores/view';

const MOVE_LABELS: Record<JobMove, string> = { publish: 'Publish', pause: 'Pause', resume: 'Resume', close: 'Close job…' };
const MOVE_DONE: Record<JobMove, string> = {
  publish: 'Published: Data Champs can now apply.',
  pause: 'Paused: no new applications until it is resumed.',
  resume: 'Resumed: Data Champs can apply again.',
  close: 'Closed: the job and its applications can no longer change.',
};

export function JobLifecycle({ job }: { job: JobDetail }) {
  const move = useJob((s) => s.move);
  const say = useJob((s) => s.say);
  const busy = useJob((s) => s.busy);
  const reloadJobs = useJobs((s) => s.load);
  const go = useRecruiterView((s) => s.go);
  const [confirmClose, setConfirmClose] = useState<HTMLElement | null>(null);
  const group = useRef<HTMLDivElement>(null);

  // A move replaces its own button (Publish becomes Pause): focus goes to the group's first
  // button then, or to the notice when no move is left.
  const run = (m: JobMove, start: HTMLElement | null) =>
    keepingFocus(
      start,
      async () => {
        if (!(await move(job.id, m))) return;
        say(MOVE_DONE[m]);
        void reloadJobs();
      },
      () => [group.current?.querySelector('button'), document.getElementById('rc-job-notice')],
    );

  return (
    <div className="actions rc-lifecycle" role="group" aria-label="Job actions" ref={group}>
      {legalJobMoves(job.status).map((m) => (
        <GuardedButton
          key={m}
          scope="jobs:write"
          noteId="rc-note-jobs-write"
          className={m === 'close' ? 'danger' : m === 'publish' ? 'primary' : undefined}
          unavailable={busy !== null}
          onClick={(e) => (m === 'close' ? setConfirmClose(e.currentTarget) : void run(m, e.currentTarget))}
        >
          {busy === m ? `${MOVE_LABELS[m].replace('…', '')}…` : MOVE_LABELS[m]}
        </GuardedButton>
      ))}
      {canEditJob(job.status) && (
        <GuardedButton scope="jobs:write" noteId="rc-note-jobs-write" unavailable={busy !== null} onClick={() => go({ screen: 'editJob', jobId: job.id })}>
          Edit
        </GuardedButton>
      )}
      {confirmClose && (
        <ConfirmDialog
          title={`Close “${job.title}”?`}
          message="Closing is permanent: the job disappears for Data Champs and cannot be reopened, and its applications can no longer change."
          confirmLabel="Close job"
          onCancel={() => setConfirmClose(null)}
          onConfirm={() => {
            setConfirmClose(null);
            void run('close', confirmClose);
          }}
        />
      )}
    </div>
  );
}

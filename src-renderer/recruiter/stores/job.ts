// The open job: its details and applications, lifecycle moves and application actions.
// Every change answers the updated record, which replaces the old one in place.
import { create } from 'zustand';
import type { IpcError, IpcResult } from '../../../src-shared/ipc-contract';
import type { Application, Job, JobDetail, JobInput, JobUpdate } from '../../../src-shared/recruiter-ipc-contract';
import { invoke } from '../../api';
import type { ApplicationAction, JobMove } from '../rules';

interface JobStore {
  job: JobDetail | null;
  loading: boolean;
  error: IpcError | null;
  /** The last failed move or action, shown above the job until the next one. */
  actionError: IpcError | null;
  /** e.g. "publish" or "hire:12" while it runs. */
  busy: string | null;
  /** What the last successful move or action did, e.g. "Hired Amara Okafor.", until the next one. */
  notice: string | null;
  say(notice: string): void;
  load(jobId: number): Promise<void>;
  move(jobId: number, move: JobMove): Promise<boolean>;
  act(jobId: number, applicationId: number, action: ApplicationAction, reason?: string): Promise<boolean>;
  create(job: JobInput): Promise<IpcResult<Job>>;
  update(jobId: number, changes: JobUpdate): Promise<IpcResult<Job>>;
  clear(): void;
}

const MOVE_CHANNELS = {
  publish: 'recruiter:jobs:publish',
  pause: 'recruiter:jobs:pause',
  resume: 'recruiter:jobs:resume',
  close: 'recruiter:jobs:close',
} as const;

function runAction(jobId: number, applicationId: number, action: ApplicationAction, reason?: string): Promise<IpcResult<Application>> {
  const ref = { jobId, applicationId };
  switch (action) {
    case 'hire':
      return invoke('recruiter:applications:accept', ref);
    case 'reject':
      return invoke('recruiter:applications:reject', reason ? { ...ref, reason } : ref);
    case 'shortlist':
      return invoke('recruiter:applications:setStatus', { ...ref, status: 'shortlisted' });
    case 'unshortlist':
      return invoke('recruiter:applications:setStatus', { ...ref, status: 'pending' });
    case 'approveWork':
      return invoke('recruiter:applications:approveWork', ref);
  }
}

export const useJob = create<JobStore>((set, get) => ({
  job: null,
  loading: false,
  error: null,
  actionError: null,
  busy: null,
  notice: null,

  say(notice) {
    set({ notice });
  },

  async load(jobId) {
    set({ loading: true, error: null, actionError: null, ...(get().job?.id === jobId ? {} : { job: null, notice: null }) });
    const result = await invoke('recruiter:jobs:get', { jobId });
    if (result.ok) set({ loading: false, job: result.value });
    else set({ loading: false, error: result.error });
  },

  async move(jobId, move) {
    set({ busy: move, actionError: null, notice: null });
    const result = await invoke(MOVE_CHANNELS[move], { jobId });
    const current = get().job;
    if (result.ok) set({ busy: null, job: current && current.id === jobId ? { ...current, ...result.value } : current });
    else set({ busy: null, actionError: result.error });
    return result.ok;
  },

  async act(jobId, applicationId, action, reason) {
    set({ busy: `${action}:${applicationId}`, actionError: null, notice: null });
    const result = await runAction(jobId, applicationId, action, reason);
    const current = get().job;
    if (result.ok) {
      const updated = result.value;
      set({
        busy: null,
        job: current && current.id === jobId
          ? { ...current, applications: current.applications.map((a) => (a.id === updated.id ? { ...a, ...updated, data_champ: updated.data_champ ?? a.data_champ } : a)) }
          : current,
      });
    } else set({ busy: null, actionError: result.error });
    return result.ok;
  },

  async create(job) {
    return invoke('recruiter:jobs:create', { job });
  },

  async update(jobId, changes) {
    const result = await invoke('recruiter:jobs:update', { jobId, changes });
    const current = get().job;
    if (result.ok && current?.id === jobId) set({ job: { ...current, ...result.value } });
    return result;
  },

  clear() {
    set({ job: null, error: null, actionError: null, busy: null, notice: null });
  },
}));

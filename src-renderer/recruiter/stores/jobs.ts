// The jobs list: one page at a time, filtered by state.
import { create } from 'zustand';
import type { IpcError } from '../../../src-shared/ipc-contract';
import type { JobsPage } from '../../../src-shared/recruiter-ipc-contract';
import { invoke } from '../../api';

export const JOBS_PER_PAGE = 10;

interface JobsStore {
  /** '' = every state. */
  status: string;
  page: number;
  data: JobsPage | null;
  loading: boolean;
  error: IpcError | null;
  load(): Promise<void>;
  setStatus(status: string): Promise<void>;
  setPage(page: number): Promise<void>;
  reset(): void;
}

let requestSeq = 0;

export const useJobs = create<JobsStore>((set, get) => ({
  status: '',
  page: 1,
  data: null,
  loading: false,
  error: null,

  async load() {
    const seq = ++requestSeq;
    const { status, page } = get();
    set({ loading: true });
    const result = await invoke('recruiter:jobs:list', { page, perPage: JOBS_PER_PAGE, ...(status ? { status } : {}) });
    // A slower answer to an older filter must not overwrite the newer one.
    if (seq !== requestSeq) return;
    if (result.ok) set({ loading: false, data: result.value, error: null });
    else set({ loading: false, error: result.error });
  },
  async setStatus(status) {
    set({ status, page: 1 });
    await get().load();
  },
  async setPage(page) {
    set({ page });
    await get().load();
  },
  reset() {
    set({ status: '', page: 1, data: null, error: null });
  },
}));

// Recommended Data Champs for a job, fetched when asked for.
import { create } from 'zustand';
import type { IpcError } from '../../../src-shared/ipc-contract';
import type { Match } from '../../../src-shared/recruiter-ipc-contract';
import { invoke } from '../../api';

interface MatchesStore {
  jobId: number | null;
  matches: Match[] | null;
  loading: boolean;
  error: IpcError | null;
  load(jobId: number): Promise<void>;
  clear(): void;
}

export const useMatches = create<MatchesStore>((set, get) => ({
  jobId: null,
  matches: null,
  loading: false,
  error: null,
  async load(jobId) {
    set({ jobId, loading: true, error: null, ...(get().jobId === jobId ? {} : { matches: null }) });
    const result = await invoke('recruiter:champs:matches', { jobId, limit: 10 });
    if (get().jobId !== jobId) return;
    if (result.ok) set({ loading: false, matches: result.value });
    else set({ loading: false, error: result.error });
  },
  clear() {
    set({ jobId: null, matches: null, error: null });
  },
}));

// Data Champ discovery: the filters as typed, and the page of results of the last search.
import { countryName } from '../country';
import { create } from 'zustand';
import type { IpcError } from '../../../src-shared/ipc-contract';
import type { ChampAvailability, ChampSearchArg, DataChampsPage } from '../../../src-shared/recruiter-ipc-contract';
import { invoke } from '../../api';
import { parseAmount } from '../rules';

export const CHAMPS_PER_PAGE = 10;

export interface ChampFilters {
  search: string;
  skills: string;
  location: string;
  country: string;
  availability: '' | ChampAvailability;
  minRate: string;
  maxRate: string;
  verifiedOnly: boolean;
}

export const EMPTY_FILTERS: ChampFilters = { search: '', skills: '', location: '', country: '', availability: '', minRate: '', maxRate: '', verifiedOnly: false };

interface ChampsStore {
  /** The filters of the results shown (applied with Search). */
  applied: ChampFilters;
  /** The page asked for; `shownPage` is the page whose rows `data` holds (they differ while loading). */
  page: number;
  shownPage: number;
  data: DataChampsPage | null;
  loading: boolean;
  error: IpcError | null;
  search(filters: ChampFilters): Promise<void>;
  setPage(page: number): Promise<void>;
  reset(): void;
}

/** Blank filters are left out; the form has checked the numbers already. */
export function toSearchArg(f: ChampFilters, page: number): ChampSearchArg {
  const arg: ChampSearchArg = { page, perPage: CHAMPS_PER_PAGE };
  const skills = f.skills.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
  if (skills.length > 0) arg.skills = skills;
  if (f.search.trim()) arg.search = f.search.trim();
  if (f.location.trim()) arg.location = f.location.trim();
  if (f.country.trim()) arg.country = countryName(f.country);
  if (f.availability) arg.availability = f.availability;
  const minRate = parseAmount(f.minRate);
  const maxRate = parseAmount(f.maxRate);
  if (f.minRate.trim() && minRate.ok) arg.minRate = Number(minRate.value);
  if (f.maxRate.trim() && maxRate.ok) arg.maxRate = Number(maxRate.value);
  if (f.verifiedOnly) arg.verifiedOnly = true;
  return arg;
}

let requestSeq = 0;

export const useChamps = create<ChampsStore>((set, get) => {
  const load = async () => {
    const seq = ++requestSeq;
    const { applied, page } = get();
    set({ loading: true });
    const result = await invoke('recruiter:champs:search', toSearchArg(applied, page));
    if (seq !== requestSeq) return;
    if (result.ok) set({ loading: false, data: result.value, shownPage: page, error: null });
    // A failed page leaves the rows shown, so the pager goes back to naming them.
    else set((s) => ({ loading: false, error: result.error, page: s.shownPage }));
  };
  return {
    applied: EMPTY_FILTERS,
    page: 1,
    shownPage: 1,
    data: null,
    loading: false,
    error: null,
    async search(filters) {
      set({ applied: filters, page: 1 });
      await load();
    },
    async setPage(page) {
      set({ page });
      await load();
    },
    reset() {
      requestSeq++;
      set({ applied: EMPTY_FILTERS, page: 1, shownPage: 1, data: null, error: null, loading: false });
    },
  };
});

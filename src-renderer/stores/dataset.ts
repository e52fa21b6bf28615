// The dataset card of each collection (what is on disk), loaded from main on demand and again
// when a run or a verify ends.
import { create } from 'zustand';
import type { DatasetCard, IpcError } from '../../src-shared/ipc-contract';
import { invoke } from '../api';

interface CardEntry {
  card: DatasetCard | null;
  error: IpcError | null;
}

interface DatasetStore {
  cards: Record<number, CardEntry>;
  load(collectionId: number): Promise<void>;
  showConsents(collectionId: number): Promise<IpcError | null>;
  reset(): void;
}

export const useDataset = create<DatasetStore>((set) => ({
  cards: {},

  async load(collectionId) {
    const result = await invoke('dataset:card', { collectionId });
    const entry: CardEntry = result.ok ? { card: result.value, error: null } : { card: null, error: result.error.kind === 'no_folder' ? null : result.error };
    set((s) => ({ cards: { ...s.cards, [collectionId]: entry } }));
  },

  async showConsents(collectionId) {
    const result = await invoke('dataset:showConsents', { collectionId });
    return result.ok ? null : result.error;
  },

  reset() {
    set({ cards: {} });
  },
}));

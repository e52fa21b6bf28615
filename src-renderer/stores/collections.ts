import { create } from 'zustand';
import type { CollectionListItem, IpcError } from '../../src-shared/ipc-contract';
import type { BucketLocation } from '../../src-shared/settings';
import type { CollectionDetail } from '../../src-shared/delivery-api';
import { invoke } from '../api';
import { useSync } from './sync';

interface DetailEntry {
  detail: CollectionDetail | null;
  loading: boolean;
  error: IpcError | null;
}

interface CollectionsStore {
  list: CollectionListItem[] | null;
  listLoading: boolean;
  listError: IpcError | null;
  details: Record<number, DetailEntry>;
  loadList(): Promise<void>;
  loadDetail(collectionId: number): Promise<void>;
  /** Opens the folder picker; returns the error if choosing failed. */
  pickFolder(collectionId: number): Promise<IpcError | null>;
  /** Saves a bucket as the collection's dataset (main checks it first); the secret is not kept here. */
  chooseBucket(collectionId: number, location: BucketLocation, secretAccessKey: string): Promise<IpcError | null>;
  showInFolder(collectionId: number): Promise<IpcError | null>;
  reset(): void;
}

function newestFirst(a: CollectionListItem, b: CollectionListItem): number {
  // The API promises newest first; sorting again keeps the UI right if a service does not.
  return Date.parse(b.created_at) - Date.parse(a.created_at) || b.id - a.id;
}

export const useCollections = create<CollectionsStore>((set, get) => ({
  list: null,
  listLoading: false,
  listError: null,
  details: {},

  async loadList() {
    set({ listLoading: true });
    const result = await invoke('collections:list', undefined);
    if (result.ok) set({ list: [...result.value].sort(newestFirst), listLoading: false, listError: null });
    else set({ listLoading: false, listError: result.error });
  },

  async loadDetail(collectionId) {
    const previous = get().details[collectionId];
    set((s) => ({ details: { ...s.details, [collectionId]: { detail: previous?.detail ?? null, loading: true, error: null } } }));
    const result = await invoke('collections:get', { collectionId });
    set((s) => ({
      details: {
        ...s.details,
        [collectionId]: result.ok
          ? { detail: result.value, loading: false, error: null }
          : { detail: previous?.detail ?? null, loading: false, error: result.error },
      },
    }));
  },

  async pickFolder(collectionId) {
    const result = await invoke('dataset:pickFolder', { collectionId });
    if (!result.ok) return result.error;
    const chosen = result.value;
    if (chosen) {
      useSync.getState().forgetDataset(collectionId);
      set((s) => ({ list: s.list?.map((c) => (c.id === collectionId ? { ...c, dest: chosen.dest, onDisk: null } : c)) ?? null }));
    }
    return null;
  },

  async chooseBucket(collectionId, location, secretAccessKey) {
    const result = await invoke('dataset:chooseBucket', { collectionId, location, secretAccessKey });
    if (!result.ok) return result.error;
    const chosen = result.value;
    useSync.getState().forgetDataset(collectionId);
    set((s) => ({ list: s.list?.map((c) => (c.id === collectionId ? { ...c, dest: chosen.dest } : c)) ?? null }));
    return null;
  },

  async showInFolder(collectionId) {
    const result = await invoke('dataset:showInFolder', { collectionId });
    return result.ok ? null : result.error;
  },

  reset() {
    set({ list: null, listError: null, details: {} });
  },
}));

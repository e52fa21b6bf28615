import { create } from 'zustand';
import type { IpcError, SettingsPatch, SettingsView } from '../../src-shared/ipc-contract';
import { invoke } from '../api';

export type ThemeChoice = 'system' | 'light' | 'dark';

interface SettingsStore {
  settings: SettingsView | null;
  error: IpcError | null;
  /** Kept in memory only: the renderer never writes to disk, and the settings contract has no theme field. */
  theme: ThemeChoice;
  load(): Promise<void>;
  update(patch: SettingsPatch): Promise<boolean>;
  setTheme(theme: ThemeChoice): void;
}

export const useSettings = create<SettingsStore>((set) => ({
  settings: null,
  error: null,
  theme: 'system',

  async load() {
    const result = await invoke('settings:get', undefined);
    if (result.ok) set({ settings: result.value, error: null });
    else set({ error: result.error });
  },

  async update(patch) {
    const result = await invoke('settings:update', patch);
    if (result.ok) {
      set({ settings: result.value, error: null });
      return true;
    }
    set({ error: result.error });
    return false;
  },

  setTheme(theme) {
    set({ theme });
  },
}));

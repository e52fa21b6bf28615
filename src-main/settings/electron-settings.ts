// Settings backed by electron-store in the app's userData folder. Imports Electron
// indirectly (electron-store does), so only index.ts uses this file.
import ElectronStore from 'electron-store';
import { SETTINGS_DEFAULTS, SETTINGS_ROOT_SCHEMA, SETTINGS_SCHEMA, type StoredSettings } from './schema';
import { wrapConf, type ConfLike, type SettingsStore } from './settings-store';

export function createElectronSettingsStore(options: { cwd?: string; configName?: string } = {}): SettingsStore {
  const store = new ElectronStore<StoredSettings>({
    ...(options.cwd ? { cwd: options.cwd } : {}),
    name: options.configName ?? 'settings',
    defaults: SETTINGS_DEFAULTS,
    schema: SETTINGS_SCHEMA as never,
    rootSchema: SETTINGS_ROOT_SCHEMA,
    clearInvalidConfig: false,
  });
  return wrapConf(store as unknown as ConfLike);
}

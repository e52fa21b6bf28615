// Settings backed by electron-store in the app's userData folder. Imports Electron (directly,
// and through electron-store), so only index.ts uses this file.
import { join } from 'node:path';
import { app } from 'electron';
import ElectronStore from 'electron-store';
import { migrateSettingsFile } from './migrate';
import { SETTINGS_DEFAULTS, SETTINGS_ROOT_SCHEMA, SETTINGS_SCHEMA, type StoredSettings } from './schema';
import { wrapConf, type ConfLike, type SettingsStore } from './settings-store';

export function createElectronSettingsStore(options: { cwd?: string; configName?: string } = {}): SettingsStore {
  const cwd = options.cwd ?? app.getPath('userData');
  const name = options.configName ?? 'settings';
  migrateSettingsFile(join(cwd, `${name}.json`));
  const store = new ElectronStore<StoredSettings>({
    cwd,
    name,
    defaults: SETTINGS_DEFAULTS,
    schema: SETTINGS_SCHEMA as never,
    rootSchema: SETTINGS_ROOT_SCHEMA,
    clearInvalidConfig: false,
  });
  return wrapConf(store as unknown as ConfLike);
}

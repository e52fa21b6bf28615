// Settings backed by `conf` in a given folder: plain Node (tests, the browser bridge, dev:web).
import { join } from 'node:path';
import Conf from 'conf';
import { migrateSettingsFile } from './migrate';
import { SETTINGS_DEFAULTS, SETTINGS_ROOT_SCHEMA, SETTINGS_SCHEMA, type StoredSettings } from './schema';
import { wrapConf, type ConfLike, type SettingsStore } from './settings-store';

export function createConfSettingsStore(options: { cwd: string; configName?: string }): SettingsStore {
  const configName = options.configName ?? 'settings';
  migrateSettingsFile(join(options.cwd, `${configName}.json`));
  const conf = new Conf<StoredSettings>({
    cwd: options.cwd,
    configName,
    projectName: 'dataset-sync',
    defaults: SETTINGS_DEFAULTS,
    // The schema object is plain JSON Schema; conf's generic type is narrower than needed.
    schema: SETTINGS_SCHEMA as never,
    rootSchema: SETTINGS_ROOT_SCHEMA,
    clearInvalidConfig: false,
  });
  return wrapConf(conf as unknown as ConfLike);
}

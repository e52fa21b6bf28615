// One small interface over the settings file, whichever library backs it (electron-store in
// the app, conf in Node). Both libraries share conf's API, so one wrapper serves both.
import { isAbsolute } from 'node:path';
import type { CollectionDatasetSettings, SettingsPatch, SettingsView } from '../ipc/contract';
import type { StoredSettings } from './schema';

export interface SettingsStore {
  view(): SettingsView;
  update(patch: SettingsPatch): SettingsView;
  setBaseUrl(baseUrl: string | null): void;
  recruiterBaseUrl(): string | null;
  setRecruiterBaseUrl(baseUrl: string | null): void;
  collectionDataset(collectionId: number): CollectionDatasetSettings | null;
  /** null removes the collection's folder choice. */
  setCollectionDataset(collectionId: number, dataset: CollectionDatasetSettings | null): void;
  /** Where the settings live on disk (for tests and diagnostics). */
  readonly path: string;
}

/** The part of conf's API we use (electron-store extends conf). */
export interface ConfLike {
  readonly path: string;
  get<K extends keyof StoredSettings>(key: K): StoredSettings[K];
  set(object: Partial<StoredSettings>): void;
}

export class SettingsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SettingsError';
  }
}

function checkDataset(dataset: CollectionDatasetSettings): CollectionDatasetSettings {
  if (!isAbsolute(dataset.dest)) throw new SettingsError(`The dataset folder must be an absolute path, got "${dataset.dest}".`);
  if (dataset.consentsDir !== undefined && !isAbsolute(dataset.consentsDir)) {
    throw new SettingsError(`The consents folder must be an absolute path, got "${dataset.consentsDir}".`);
  }
  return dataset.consentsDir === undefined ? { dest: dataset.dest } : { dest: dataset.dest, consentsDir: dataset.consentsDir };
}

export function wrapConf(conf: ConfLike): SettingsStore {
  const write = (values: Partial<StoredSettings>) => {
    try {
      conf.set(values);
    } catch (e) {
      // conf reports schema violations as plain Errors; say which settings file refused it.
      throw new SettingsError(`The settings could not be saved (${conf.path}): ${(e as Error).message}`, { cause: e });
    }
  };
  const view = (): SettingsView => ({
    baseUrl: conf.get('baseUrl'),
    concurrency: conf.get('concurrency'),
    autoSyncMinutes: conf.get('autoSyncMinutes'),
    excludeGold: conf.get('excludeGold'),
    collections: { ...conf.get('collections') },
  });
  return {
    path: conf.path,
    view,
    update(patch) {
      const values: Partial<StoredSettings> = {};
      if (patch.concurrency !== undefined) values.concurrency = patch.concurrency;
      if (patch.autoSyncMinutes !== undefined) values.autoSyncMinutes = patch.autoSyncMinutes;
      if (patch.excludeGold !== undefined) values.excludeGold = patch.excludeGold;
      if (Object.keys(values).length > 0) write(values);
      return view();
    },
    setBaseUrl: (baseUrl) => write({ baseUrl }),
    recruiterBaseUrl: () => conf.get('recruiterBaseUrl'),
    setRecruiterBaseUrl: (recruiterBaseUrl) => write({ recruiterBaseUrl }),
    collectionDataset(collectionId) {
      return conf.get('collections')[String(collectionId)] ?? null;
    },
    setCollectionDataset(collectionId, dataset) {
      const collections = { ...conf.get('collections') };
      if (dataset === null) delete collections[String(collectionId)];
      else collections[String(collectionId)] = checkDataset(dataset);
      write({ collections });
    },
  };
}

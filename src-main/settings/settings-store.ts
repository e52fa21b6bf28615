// One small interface over the settings file, whichever library backs it (electron-store in
// the app, conf in Node). Both libraries share conf's API, so one wrapper serves both.
// Accounts (service base URL + the client its key belongs to) are listed here; dataset folders
// are kept per account and collection, so two services' collection 1 never share a folder.
import { isAbsolute } from 'node:path';
import type { Account, CollectionDatasetSettings, SettingsPatch, SettingsView, StoredSettings } from '../../src-shared/settings';
import { bucketLabel } from '../../src-shared/settings';
import { newAccountId } from './migrate';

export interface SettingsStore {
  view(): SettingsView;
  update(patch: SettingsPatch): SettingsView;
  accounts(): Account[];
  activeAccount(): Account | null;
  /** Adds the account, or replaces the one with its id. */
  saveAccount(account: Account): void;
  setActiveAccount(accountId: string | null): void;
  /**
   * Makes `baseUrl` the active account's address, adding an account whose client is not yet
   * known when none has it (a demo or test that pre-sets the service); null: none active.
   */
  setBaseUrl(baseUrl: string | null): void;
  recruiterBaseUrl(): string | null;
  setRecruiterBaseUrl(baseUrl: string | null): void;
  /** The account's dataset folders, keyed by collection id. */
  datasets(accountId: string): Record<string, CollectionDatasetSettings>;
  collectionDataset(accountId: string, collectionId: number): CollectionDatasetSettings | null;
  /** null removes the collection's folder choice. */
  setCollectionDataset(accountId: string, collectionId: number, dataset: CollectionDatasetSettings | null): void;
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

export const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

function checkDataset(dataset: CollectionDatasetSettings): CollectionDatasetSettings {
  const checked = checkLocation(dataset);
  // The chosen subset (slots, quota groups) is kept with either kind of dataset.
  return dataset.subset === undefined ? checked : { ...checked, subset: { slots: dataset.subset.slots && [...dataset.subset.slots], groups: dataset.subset.groups && [...dataset.subset.groups] } };
}

function checkLocation(dataset: CollectionDatasetSettings): CollectionDatasetSettings {
  // A bucket dataset (issue 20): `dest` is the bucket's s3:// label, not a folder, and the
  // location itself must be kept (it was dropped here, so "Use this bucket" could not save).
  if (dataset.bucket !== undefined) {
    const label = bucketLabel(dataset.bucket);
    if (dataset.dest !== label) throw new SettingsError(`A bucket dataset is shown as "${label}", got "${dataset.dest}".`);
    return { dest: label, bucket: { ...dataset.bucket } };
  }
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
  const accounts = () => conf.get('accounts').map((a) => ({ ...a }));
  const activeAccount = () => accounts().find((a) => a.id === conf.get('activeAccountId')) ?? null;
  const datasets = (accountId: string) => ({ ...conf.get('datasets')[accountId] });
  const view = (): SettingsView => {
    const active = activeAccount();
    return {
      accounts: accounts(),
      activeAccountId: active?.id ?? null,
      concurrency: conf.get('concurrency'),
      autoSyncMinutes: conf.get('autoSyncMinutes'),
      excludeGold: conf.get('excludeGold'),
      bwlimitBytesPerSecond: conf.get('bwlimitBytesPerSecond') ?? null,
      collections: active ? datasets(active.id) : {},
    };
  };
  const saveAccount = (account: Account) => {
    const list = accounts();
    const at = list.findIndex((a) => a.id === account.id);
    if (at >= 0) list[at] = account;
    else list.push(account);
    write({ accounts: list });
  };
  return {
    path: conf.path,
    view,
    update(patch) {
      const values: Partial<StoredSettings> = {};
      if (patch.concurrency !== undefined) values.concurrency = patch.concurrency;
      if (patch.autoSyncMinutes !== undefined) values.autoSyncMinutes = patch.autoSyncMinutes;
      if (patch.excludeGold !== undefined) values.excludeGold = patch.excludeGold;
      if (patch.bwlimitBytesPerSecond !== undefined) values.bwlimitBytesPerSecond = patch.bwlimitBytesPerSecond;
      if (Object.keys(values).length > 0) write(values);
      return view();
    },
    accounts,
    activeAccount,
    saveAccount,
    setActiveAccount(accountId) {
      if (accountId !== null && !accounts().some((a) => a.id === accountId)) throw new SettingsError(`There is no account "${accountId}".`);
      write({ activeAccountId: accountId });
    },
    setBaseUrl(baseUrl) {
      if (baseUrl === null) return write({ activeAccountId: null });
      const active = activeAccount();
      const account = active && sameUrl(active.baseUrl, baseUrl) ? active : (accounts().find((a) => sameUrl(a.baseUrl, baseUrl)) ?? { id: newAccountId(), baseUrl, client: null });
      saveAccount(account);
      write({ activeAccountId: account.id });
    },
    recruiterBaseUrl: () => conf.get('recruiterBaseUrl'),
    setRecruiterBaseUrl: (recruiterBaseUrl) => write({ recruiterBaseUrl }),
    datasets,
    collectionDataset(accountId, collectionId) {
      return conf.get('datasets')[accountId]?.[String(collectionId)] ?? null;
    },
    setCollectionDataset(accountId, collectionId, dataset) {
      const all = { ...conf.get('datasets') };
      const forAccount = { ...all[accountId] };
      if (dataset === null) delete forAccount[String(collectionId)];
      else forAccount[String(collectionId)] = checkDataset(dataset);
      all[accountId] = forAccount;
      write({ datasets: all });
    },
  };
}

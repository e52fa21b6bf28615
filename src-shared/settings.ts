// The app's non-secret settings, declared once: the type, the runtime check of a settings
// change from the window, the defaults and (generated from this with z.toJSONSchema) the JSON
// schema electron-store and conf enforce on the file. API keys never go here.
import { z } from 'zod';
import { bool, integer, matching, text } from './schema-kit';

/** Parallel downloads of one sync: declared here once for the settings, the IPC contract, the engine and the CLI. */
export const CONCURRENCY = { min: 1, max: 16 } as const;
export const concurrencySchema = integer(CONCURRENCY.min, CONCURRENCY.max);
export const DEFAULT_CONCURRENCY = 4;

const autoSyncRule = 'null (off) or an integer from 15 to 60';
/** Minutes between automatic syncs while the app runs; null = off. */
export const autoSyncMinutesSchema = z.union([z.null(), integer(15, 60, autoSyncRule)], {
  error: (iss) => `must be ${autoSyncRule}, got ${typeof iss.input === 'number' ? String(iss.input) : typeof iss.input}.`,
});

export const accountIdSchema = matching(64, /^[A-Za-z0-9_-]{1,64}$/, 'an account id (letters, digits, _ and -)');

/**
 * One service account: the base URL and whom the key belongs to (the client from GET /me;
 * null until the service has been asked, e.g. right after migrating an older settings file).
 * The key itself lives in the secret store, one entry per account.
 */
export const accountSchema = z.strictObject({
  id: accountIdSchema,
  baseUrl: text(2048).min(1),
  client: z.strictObject({ id: z.int().positive(), name: z.string().max(500) }).nullable(),
});
export type Account = z.infer<typeof accountSchema>;

// Absolute paths (checked where paths are known, in main); bounded here.
const folder = text(4096).min(1);
export const collectionDatasetSchema = z.strictObject({ dest: folder, consentsDir: folder.optional() });
export type CollectionDatasetSettings = z.infer<typeof collectionDatasetSchema>;

/** Collection ids as object keys. */
const collectionKey = z.string().regex(/^[1-9][0-9]{0,15}$/);

export const SETTINGS_VERSION = 2;

export const storedSettingsSchema = z.strictObject({
  settingsVersion: z.literal(SETTINGS_VERSION),
  accounts: z.array(accountSchema).max(100),
  activeAccountId: accountIdSchema.nullable(),
  recruiterBaseUrl: text(2048).min(1).nullable(),
  concurrency: concurrencySchema,
  autoSyncMinutes: autoSyncMinutesSchema,
  excludeGold: bool(),
  /** Dataset folders by account id, then collection id: a folder belongs to one service and one collection. */
  datasets: z.record(accountIdSchema, z.record(collectionKey, collectionDatasetSchema)),
});
export type StoredSettings = z.infer<typeof storedSettingsSchema>;

export const SETTINGS_DEFAULTS: StoredSettings = {
  settingsVersion: SETTINGS_VERSION,
  accounts: [],
  activeAccountId: null,
  recruiterBaseUrl: null,
  concurrency: DEFAULT_CONCURRENCY,
  autoSyncMinutes: null,
  excludeGold: false,
  datasets: {},
};

/** What the window may change directly (settings:update). */
export const settingsPatchSchema = storedSettingsSchema.pick({ concurrency: true, autoSyncMinutes: true, excludeGold: true }).partial();
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

/** What the window sees: every account, and the dataset folders of the active one. */
export interface SettingsView {
  accounts: Account[];
  activeAccountId: string | null;
  concurrency: number;
  autoSyncMinutes: number | null;
  excludeGold: boolean;
  /** The active account's dataset folders, keyed by collection id. */
  collections: Record<string, CollectionDatasetSettings>;
}

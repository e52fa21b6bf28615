// The app's non-secret settings, declared once: the type, the runtime check of a settings
// change from the window, the defaults and (generated from this with z.toJSONSchema) the JSON
// schema electron-store and conf enforce on the file. API keys never go here.
import { z } from 'zod';
import { bool, describeValue, integer, matching, text } from './schema-kit';
import { GiB, MiB } from './units';

/** Parallel downloads of one sync: declared here once for the settings, the IPC contract, the engine and the CLI. */
export const CONCURRENCY = { min: 1, max: 16 } as const;
export const concurrencySchema = integer(CONCURRENCY.min, CONCURRENCY.max);
export const DEFAULT_CONCURRENCY = 4;

const autoSyncRule = 'null (off) or an integer from 15 to 60';
/** Minutes between automatic syncs while the app runs; null = off. */
export const autoSyncMinutesSchema = z.union([z.null(), integer(15, 60, autoSyncRule)], {
  error: (iss) => `must be ${autoSyncRule}, got ${typeof iss.input === 'number' ? String(iss.input) : typeof iss.input}.`,
});

/**
 * The app's bandwidth limit in bytes per second (the engine's bwlimitBytesPerSecond): null or
 * absent = no limit. Shown and typed in MiB/s, the unit of the CLI's `--bwlimit 10M` and of
 * every size in the window (units.ts). The stored range stays 10000 B/s (files written when the
 * field was in decimal MB/s stay valid) to 10 GiB/s.
 */
export const BWLIMIT = { min: 10_000, max: 10 * GiB } as const;
const bwlimitRule = `null (no limit) or an integer number of bytes per second from ${BWLIMIT.min} to ${BWLIMIT.max}`;
export const bwlimitSchema = z.union([z.null(), integer(BWLIMIT.min, BWLIMIT.max, bwlimitRule)], {
  error: (iss) => `must be ${bwlimitRule}, got ${typeof iss.input === 'number' ? String(iss.input) : typeof iss.input}.`,
});

/** What the Settings field takes, in MiB/s: 0.01 to 10240. */
export const BWLIMIT_FIELD_MIB = { min: 0.01, max: BWLIMIT.max / MiB } as const;

/**
 * What the Settings field accepts: MiB/s with a decimal point or comma ("2", "0.5", "2,5");
 * empty or 0 = no limit. Answers the bytes per second (null = no limit) or why it is refused.
 */
export function parseBwlimitMebibytes(typed: string): { ok: true; bytesPerSecond: number | null } | { ok: false; problem: string } {
  const text = typed.trim();
  if (text === '' || /^0+([.,]0*)?$/.test(text)) return { ok: true, bytesPerSecond: null };
  const shown = `"${text.slice(0, 20)}"`;
  if (!/^-?(\d+([.,]\d*)?|[.,]\d+)$/.test(text)) return { ok: false, problem: `must be a number of MiB/s such as 2 or 0.5 (empty or 0 for no limit), got ${shown}.` };
  const mebibytes = Number(text.replace(',', '.'));
  if (mebibytes < 0) return { ok: false, problem: `cannot be negative, got ${shown}: use empty or 0 for no limit.` };
  if (mebibytes < BWLIMIT_FIELD_MIB.min || mebibytes > BWLIMIT_FIELD_MIB.max) {
    return { ok: false, problem: `must be from ${BWLIMIT_FIELD_MIB.min} to ${BWLIMIT_FIELD_MIB.max} MiB/s (empty or 0 for no limit), got ${shown}.` };
  }
  return { ok: true, bytesPerSecond: Math.round(mebibytes * MiB) };
}

/** A stored limit as the field shows it: MiB/s, at most 3 decimals ("" = no limit). */
export function bwlimitFieldText(bytesPerSecond: number | null): string {
  return bytesPerSecond === null ? '' : String(Number((bytesPerSecond / MiB).toFixed(3)));
}

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

/**
 * An S3-compatible bucket as a dataset's location (README "Object storage"). No secret: the
 * secret access key lives in the OS keychain only, one entry per endpoint, bucket and access key
 * id. The endpoint is checked in main like a service's base URL (https, or http on loopback);
 * null means AWS itself.
 */
export const bucketLocationSchema = z.strictObject({
  endpoint: text(2048).min(1).nullable(),
  region: matching(64, /^[a-z0-9][a-z0-9-]{0,63}$/, 'a region such as us-east-1'),
  bucket: matching(63, /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens'),
  /** Where the dataset goes in the bucket: not empty, no leading or trailing '/', no empty, '.' or '..' part. */
  prefix: matching(
    1024,
    /^(?!.*(?:^|\/)\.{1,2}(?:\/|$))[A-Za-z0-9!_.*'()-]+(?:\/[A-Za-z0-9!_.*'()-]+)*$/,
    'a prefix such as datasets/collection-1 (letters, digits and !_.*\'()- in parts separated by /)',
  ),
  accessKeyId: matching(128, /^[A-Za-z0-9+/=_-]{3,128}$/, 'an access key id'),
  /** Path-style addressing (always on for IP and loopback endpoints). */
  forcePathStyle: bool().optional(),
});
export type BucketLocation = z.infer<typeof bucketLocationSchema>;

/** The secret access key as typed into the window once (it goes to the keychain, never back). */
export const bucketSecretSchema = matching(256, /^[\x21-\x7e]{1,256}$/, 'a secret access key (printable characters, no spaces)');

/** How a bucket location is shown and named on the command line: s3://BUCKET/PREFIX. */
export function bucketLabel(location: Pick<BucketLocation, 'bucket' | 'prefix'>): string {
  return `s3://${location.bucket}/${location.prefix}`;
}

/**
 * A collection's dataset: a folder (`dest` is its path), or a bucket (`bucket` set, `dest` is its
 * s3:// label, which the engine's events, history and the window show).
 */
/** A slot key or quota group value as the window sends it (the service's own tokens: no control characters). */
export const subsetItemSchema = matching(128, /^[^\p{Cc},]{1,128}$/u, 'a slot key or quota group value (1 to 128 characters, no commas or control characters)');
/** null: every slot (or set); a list: only those (at most 500, and at least one). */
const subsetListError = (iss: { input?: unknown }) => `must be null (all) or a list of 1 to 500 names, got ${describeValue(iss.input)}${Array.isArray(iss.input) ? ` of ${iss.input.length}` : ''}.`;
export const subsetListSchema = z.array(subsetItemSchema, { error: subsetListError }).min(1, { error: subsetListError }).max(500, { error: subsetListError }).nullable();
/** The part of the collection the dataset holds, given to the engine on every sync (absent: as the engine remembers). */
export const datasetSubsetSchema = z.strictObject({ slots: subsetListSchema, groups: subsetListSchema });
export type DatasetSubset = z.infer<typeof datasetSubsetSchema>;

export const collectionDatasetSchema = z.strictObject({ dest: folder, consentsDir: folder.optional(), bucket: bucketLocationSchema.optional(), subset: datasetSubsetSchema.optional() });
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
  /** Absent in files written before it existed: no limit (no settings version change needed). */
  bwlimitBytesPerSecond: bwlimitSchema.optional(),
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
export const settingsPatchSchema = storedSettingsSchema.pick({ concurrency: true, autoSyncMinutes: true, excludeGold: true, bwlimitBytesPerSecond: true }).partial();
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

/** What the window sees: every account, and the dataset folders of the active one. */
export interface SettingsView {
  accounts: Account[];
  activeAccountId: string | null;
  concurrency: number;
  autoSyncMinutes: number | null;
  excludeGold: boolean;
  /** Total download rate cap of a sync in bytes per second; null = no limit. Applies from the next sync. */
  bwlimitBytesPerSecond: number | null;
  /** The active account's dataset folders, keyed by collection id. */
  collections: Record<string, CollectionDatasetSettings>;
}

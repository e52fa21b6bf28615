// Settings files written before accounts existed (one `baseUrl`, folders keyed by collection
// id alone) become version 2 on first start: the base URL becomes an account whose client is
// learnt from GET /me on the next connection, and every folder is kept under that account.
// The old file is kept beside the new one (settings.v1.json). Runs before conf opens the file,
// because conf would refuse the old shape against the new schema.
import { randomUUID } from 'node:crypto';
import { copyFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { SETTINGS_DEFAULTS, storedSettingsSchema, type StoredSettings } from '../../src-shared/settings';

/** What version 1 wrote (every field optional: conf filled defaults only in memory). */
const legacySchema = z.looseObject({
  baseUrl: z.string().nullable().optional(),
  recruiterBaseUrl: z.string().nullable().optional(),
  concurrency: z.number().optional(),
  autoSyncMinutes: z.number().nullable().optional(),
  excludeGold: z.boolean().optional(),
  collections: z.record(z.string(), z.object({ dest: z.string(), consentsDir: z.string().optional() })).optional(),
});

export function newAccountId(): string {
  return randomUUID().replaceAll('-', '').slice(0, 12);
}

/** The version-2 settings for a version-1 file's content. */
export function migrateLegacySettings(legacy: unknown): StoredSettings {
  const old = legacySchema.parse(legacy);
  const account = old.baseUrl ? { id: newAccountId(), baseUrl: old.baseUrl, client: null } : null;
  return storedSettingsSchema.parse({
    ...SETTINGS_DEFAULTS,
    accounts: account ? [account] : [],
    activeAccountId: account?.id ?? null,
    recruiterBaseUrl: old.recruiterBaseUrl ?? null,
    concurrency: old.concurrency ?? SETTINGS_DEFAULTS.concurrency,
    autoSyncMinutes: old.autoSyncMinutes ?? null,
    excludeGold: old.excludeGold ?? false,
    datasets: account && old.collections ? { [account.id]: old.collections } : {},
  });
}

/** Rewrites a version-1 settings file in place (keeping a copy); anything else is left alone. */
export function migrateSettingsFile(path: string): boolean {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  const content: unknown = JSON.parse(text);
  if (typeof content !== 'object' || content === null || 'settingsVersion' in content) return false;
  const migrated = migrateLegacySettings(content);
  copyFileSync(path, path.replace(/\.json$/, '') + '.v1.json');
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(migrated, null, '\t'), { mode: 0o600 });
  renameSync(temp, path);
  return true;
}

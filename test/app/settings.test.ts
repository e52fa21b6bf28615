import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createConfSettingsStore } from '../../src-main/settings/conf-settings';
import { SETTINGS_SCHEMA } from '../../src-main/settings/schema';
import { SettingsError } from '../../src-main/settings/settings-store';
import { storedSettingsSchema } from '../../src-shared/settings';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ds-settings-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PARTNER = 'https://service.example/api/v1/partner';
const OTHER = 'https://other.example/api/v1/partner';

describe('settings with conf', () => {
  it('starts from the defaults', () => {
    expect(createConfSettingsStore({ cwd: dir }).view()).toEqual({
      accounts: [],
      activeAccountId: null,
      concurrency: 4,
      autoSyncMinutes: null,
      excludeGold: false,
      bwlimitBytesPerSecond: null,
      collections: {},
    });
  });

  it('persists updates, accounts and per-account collection folders across instances', async () => {
    const first = createConfSettingsStore({ cwd: dir });
    first.update({ concurrency: 8, autoSyncMinutes: 30, excludeGold: true, bwlimitBytesPerSecond: 2_000_000 });
    first.saveAccount({ id: 'a1', baseUrl: PARTNER, client: { id: 3, name: 'Acme' } });
    first.saveAccount({ id: 'b2', baseUrl: OTHER, client: { id: 3, name: 'Other Acme' } });
    first.setActiveAccount('a1');
    first.setRecruiterBaseUrl('https://service.example/api/v1/recruiter');
    first.setCollectionDataset('a1', 7, { dest: join(dir, 'data'), consentsDir: join(dir, 'consents') });
    first.setCollectionDataset('a1', 9, { dest: join(dir, 'nine') });
    first.setCollectionDataset('b2', 7, { dest: join(dir, 'other-seven') });

    const second = createConfSettingsStore({ cwd: dir });
    expect(second.view()).toEqual({
      accounts: [
        { id: 'a1', baseUrl: PARTNER, client: { id: 3, name: 'Acme' } },
        { id: 'b2', baseUrl: OTHER, client: { id: 3, name: 'Other Acme' } },
      ],
      activeAccountId: 'a1',
      concurrency: 8,
      autoSyncMinutes: 30,
      excludeGold: true,
      bwlimitBytesPerSecond: 2_000_000,
      collections: { '7': { dest: join(dir, 'data'), consentsDir: join(dir, 'consents') }, '9': { dest: join(dir, 'nine') } },
    });
    expect(second.recruiterBaseUrl()).toBe('https://service.example/api/v1/recruiter');
    // Collection 7 of the other service is another dataset.
    expect(second.collectionDataset('b2', 7)).toEqual({ dest: join(dir, 'other-seven') });
    expect(second.collectionDataset('b2', 9)).toBeNull();
    second.setActiveAccount('b2');
    expect(second.view().collections).toEqual({ '7': { dest: join(dir, 'other-seven') } });
    second.setCollectionDataset('a1', 9, null);
    expect(createConfSettingsStore({ cwd: dir }).collectionDataset('a1', 9)).toBeNull();
    expect(JSON.parse(await readFile(second.path, 'utf8'))).toMatchObject({ concurrency: 8, settingsVersion: 2 });
    expect(() => second.setActiveAccount('nobody')).toThrow(SettingsError);
  });

  it('setBaseUrl selects the account with that address, or adds one whose client is not known yet', () => {
    const store = createConfSettingsStore({ cwd: dir });
    store.setBaseUrl(PARTNER);
    const added = store.activeAccount();
    expect(added).toMatchObject({ baseUrl: PARTNER, client: null });
    store.setBaseUrl(`${PARTNER}/`);
    expect(store.accounts()).toHaveLength(1);
    store.setBaseUrl(null);
    expect(store.activeAccount()).toBeNull();
  });

  it('the schema refuses out-of-range values even when the IPC validation is bypassed', () => {
    const store = createConfSettingsStore({ cwd: dir });
    expect(() => store.update({ concurrency: 17 })).toThrow(SettingsError);
    expect(() => store.update({ concurrency: 0 })).toThrow(/concurrency/);
    expect(() => store.update({ autoSyncMinutes: 5 })).toThrow(SettingsError);
    expect(() => store.update({ concurrency: 2.5 })).toThrow(SettingsError);
    expect(store.view().concurrency).toBe(4);
    expect(store.view().autoSyncMinutes).toBeNull();
    expect(() => store.update({ bwlimitBytesPerSecond: -1 })).toThrow(/bwlimitBytesPerSecond/);
    expect(() => store.update({ bwlimitBytesPerSecond: 1.5e4 + 0.5 })).toThrow(SettingsError);
    expect(store.view().bwlimitBytesPerSecond).toBeNull();
  });

  it('a version-2 file written before the bandwidth limit existed means no limit; null clears a limit', async () => {
    const before = createConfSettingsStore({ cwd: dir });
    const written = JSON.parse(await readFile(before.path, 'utf8')) as Record<string, unknown>;
    delete written.bwlimitBytesPerSecond;
    await writeFile(before.path, JSON.stringify(written));
    const store = createConfSettingsStore({ cwd: dir });
    expect(store.view().bwlimitBytesPerSecond).toBeNull();
    expect(store.update({ bwlimitBytesPerSecond: 2_500_000 }).bwlimitBytesPerSecond).toBe(2_500_000);
    expect(store.update({ bwlimitBytesPerSecond: null }).bwlimitBytesPerSecond).toBeNull();
    expect(JSON.parse(await readFile(store.path, 'utf8'))).toMatchObject({ settingsVersion: 2, bwlimitBytesPerSecond: null });
  });

  it('keeps the subset chosen for a dataset across instances', async () => {
    const first = createConfSettingsStore({ cwd: dir });
    first.setCollectionDataset('a1', 7, { dest: join(dir, 'data'), subset: { slots: ['greeting', 'wave'], groups: null } });
    const second = createConfSettingsStore({ cwd: dir });
    expect(second.collectionDataset('a1', 7)).toEqual({ dest: join(dir, 'data'), subset: { slots: ['greeting', 'wave'], groups: null } });
  });

  it('refuses relative dataset folders', () => {
    const store = createConfSettingsStore({ cwd: dir });
    expect(() => store.setCollectionDataset('a1', 1, { dest: 'relative/folder' })).toThrow(/absolute path/);
    expect(() => store.setCollectionDataset('a1', 1, { dest: join(dir, 'x'), consentsDir: '../c' })).toThrow(/absolute path/);
  });

  it('keeps a bucket dataset (its s3:// label and location) across instances; a label that is not the location\'s is refused', () => {
    const bucket = { endpoint: 'http://127.0.0.1:7480', region: 'us-east-1', bucket: 'media', prefix: 'datasets/one', accessKeyId: 'AKIDEXAMPLE' };
    createConfSettingsStore({ cwd: dir }).setCollectionDataset('a1', 1, { dest: 's3://media/datasets/one', bucket });
    expect(createConfSettingsStore({ cwd: dir }).collectionDataset('a1', 1)).toEqual({ dest: 's3://media/datasets/one', bucket });
    expect(() => createConfSettingsStore({ cwd: dir }).setCollectionDataset('a1', 2, { dest: 's3://media/other', bucket })).toThrow(SettingsError);
  });

  it("the file's JSON schema is generated from the one zod declaration", () => {
    const generated = z.toJSONSchema(storedSettingsSchema) as { properties: Record<string, unknown> };
    expect(SETTINGS_SCHEMA).toEqual(generated.properties);
    expect(SETTINGS_SCHEMA.concurrency).toMatchObject({ type: 'integer', minimum: 1, maximum: 16 });
  });
});

describe('migration of a settings file written by version 1 (one base URL, folders by collection id)', () => {
  // Exactly what the previous version's conf wrote.
  const legacy = (d: string) => ({
    baseUrl: PARTNER,
    recruiterBaseUrl: 'https://service.example/api/v1/recruiter',
    concurrency: 8,
    autoSyncMinutes: 30,
    excludeGold: true,
    collections: { '7': { dest: join(d, 'data'), consentsDir: join(d, 'consents') }, '9': { dest: join(d, 'nine') } },
  });

  it('becomes one account holding every folder; nothing is lost and the old file is kept', async () => {
    const file = join(dir, 'settings.json');
    const original = JSON.stringify(legacy(dir), null, '\t');
    await writeFile(file, original);
    const store = createConfSettingsStore({ cwd: dir });
    const [account] = store.accounts();
    expect(store.accounts()).toHaveLength(1);
    expect(account).toMatchObject({ baseUrl: PARTNER, client: null });
    expect(store.view()).toEqual({
      accounts: [account],
      activeAccountId: account!.id,
      concurrency: 8,
      autoSyncMinutes: 30,
      excludeGold: true,
      bwlimitBytesPerSecond: null,
      collections: legacy(dir).collections,
    });
    expect(store.recruiterBaseUrl()).toBe('https://service.example/api/v1/recruiter');
    expect(await readFile(join(dir, 'settings.v1.json'), 'utf8')).toBe(original);
    // Migrated once: the next start reads version 2 as it is.
    expect(createConfSettingsStore({ cwd: dir }).view()).toEqual(store.view());
  });

  it('a file with only some keys (defaults were never written) and no base URL migrates too', async () => {
    await writeFile(join(dir, 'settings.json'), JSON.stringify({ concurrency: 2 }));
    expect(createConfSettingsStore({ cwd: dir }).view()).toMatchObject({ accounts: [], activeAccountId: null, concurrency: 2, autoSyncMinutes: null });
  });
});

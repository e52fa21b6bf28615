import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConfSettingsStore } from '../../src-main/settings/conf-settings';
import { SettingsError } from '../../src-main/settings/settings-store';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ds-settings-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('settings with conf', () => {
  it('starts from the defaults', () => {
    expect(createConfSettingsStore({ cwd: dir }).view()).toEqual({
      baseUrl: null,
      concurrency: 4,
      autoSyncMinutes: null,
      excludeGold: false,
      collections: {},
    });
  });

  it('persists updates, base URLs and per-collection folders across instances', async () => {
    const first = createConfSettingsStore({ cwd: dir });
    first.update({ concurrency: 8, autoSyncMinutes: 30, excludeGold: true });
    first.setBaseUrl('https://service.example/api/v1/partner');
    first.setRecruiterBaseUrl('https://service.example/api/v1/recruiter');
    first.setCollectionDataset(7, { dest: join(dir, 'data'), consentsDir: join(dir, 'consents') });
    first.setCollectionDataset(9, { dest: join(dir, 'nine') });

    const second = createConfSettingsStore({ cwd: dir });
    expect(second.view()).toEqual({
      baseUrl: 'https://service.example/api/v1/partner',
      concurrency: 8,
      autoSyncMinutes: 30,
      excludeGold: true,
      collections: { '7': { dest: join(dir, 'data'), consentsDir: join(dir, 'consents') }, '9': { dest: join(dir, 'nine') } },
    });
    expect(second.recruiterBaseUrl()).toBe('https://service.example/api/v1/recruiter');
    expect(second.collectionDataset(9)).toEqual({ dest: join(dir, 'nine') });
    second.setCollectionDataset(9, null);
    expect(createConfSettingsStore({ cwd: dir }).collectionDataset(9)).toBeNull();
    expect(JSON.parse(await readFile(second.path, 'utf8'))).toMatchObject({ concurrency: 8 });
  });

  it('the schema refuses out-of-range values even when the IPC validation is bypassed', () => {
    const store = createConfSettingsStore({ cwd: dir });
    expect(() => store.update({ concurrency: 17 })).toThrow(SettingsError);
    expect(() => store.update({ concurrency: 0 })).toThrow(/concurrency/);
    expect(() => store.update({ autoSyncMinutes: 5 })).toThrow(SettingsError);
    expect(() => store.update({ concurrency: 2.5 })).toThrow(SettingsError);
    expect(store.view().concurrency).toBe(4);
    expect(store.view().autoSyncMinutes).toBeNull();
  });

  it('refuses relative dataset folders', () => {
    const store = createConfSettingsStore({ cwd: dir });
    expect(() => store.setCollectionDataset(1, { dest: 'relative/folder' })).toThrow(/absolute path/);
    expect(() => store.setCollectionDataset(1, { dest: join(dir, 'x'), consentsDir: '../c' })).toThrow(/absolute path/);
  });
});

// Every invoke channel refuses malformed arguments with invalid_argument (or base_url for a
// well-formed string that is not an acceptable service address), before doing any work.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORE_INVOKE_CHANNELS } from '../../src-shared/ipc-channels';
import type { Handlers } from '../../src-main/ipc/handlers';
import { createMainServices } from '../../src-main/ipc/services';
import { createMemoryStore } from '../../src-main/secrets/memory-store';
import { createConfSettingsStore } from '../../src-main/settings/conf-settings';

let dir: string;
let handlers: Handlers;
let picks = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ds-validate-'));
  handlers = createMainServices({
    secrets: createMemoryStore(),
    settings: createConfSettingsStore({ cwd: dir }),
    pickFolder: async () => {
      picks++;
      return null;
    },
    showItemInFolder: () => undefined,
    openExternal: async () => undefined,
    notify: () => undefined,
    emit: () => undefined,
  }).handlers;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const collectionChannels = ['dataset:withdrawn', 'dataset:purgeWithdrawn', 'sync:repair', 'collections:get', 'dataset:pickFolder', 'dataset:showInFolder', 'dataset:showConsents', 'dataset:card', 'sync:cancel', 'sync:pause', 'sync:resume', 'sync:state', 'sync:history', 'verify:run', 'verify:cancel'] as const;
const noArgChannels = ['connection:get', 'connection:forget', 'collections:list', 'settings:get', 'autosync:next', 'sync:all', 'media:base'] as const;
const goodSets = { collectionId: 1, status: 'accepted', page: 1, perPage: 50 };
const goodBucket = { endpoint: 'https://s3.example.org', region: 'us-east-1', bucket: 'research-data', prefix: 'faces/2026', accessKeyId: 'AKIAEXAMPLE' };

const cases: Array<[string, unknown, RegExp]> = [
  ...noArgChannels.flatMap((c): Array<[string, unknown, RegExp]> => [
    [c, { x: 1 }, /takes no argument/],
    [c, 'text', /takes no argument/],
  ]),
  ...collectionChannels.flatMap((c): Array<[string, unknown, RegExp]> => [
    [c, undefined, /Expected an object/],
    [c, {}, /Missing field "collectionId"/],
    [c, { collectionId: 0 }, /"collectionId" must be an integer from 1/],
    [c, { collectionId: -3 }, /"collectionId"/],
    [c, { collectionId: 1.5 }, /"collectionId"/],
    [c, { collectionId: '7' }, /"collectionId"/],
    [c, { collectionId: 1, extra: true }, /Unexpected field "extra"/],
    [c, [1], /Expected an object/],
  ]),
  ['dataset:sets', { collectionId: 1, page: 1 }, /Missing field "perPage"/],
  ['dataset:sets', { collectionId: 1, page: 1, perPage: 500 }, /"perPage" must be an integer from 1 to 200/],
  ['dataset:sets', { collectionId: 1, page: 1, perPage: 10, gold: 'yes' }, /"gold" must be one of gold, not_gold/],
  ['dataset:sets', { collectionId: 1, page: 1, perPage: 10, setId: '1 OR 1' }, /"setId" must be digits of a set id/],
  ['dataset:sets', { collectionId: 1, page: 1, perPage: 10, path: '/etc' }, /Unexpected field "path"/],
  ['dataset:reveal', { collectionId: 1 }, /Missing field "setId"/],
  ['dataset:reveal', { collectionId: 1, setId: 2, filename: '../../etc/passwd' }, /"filename" must be a file name/],
  ['dataset:reveal', { collectionId: 1, setId: 2, filename: '..' }, /"filename" must be a file name/],
  ['dataset:reveal', { collectionId: 1, setId: 2, filename: '/etc/passwd' }, /"filename" must be a file name/],
  ['accounts:switch', {}, /Missing field "accountId"/],
  ['accounts:switch', { accountId: '../x' }, /"accountId" must be an account id/],
  ['accounts:switch', { accountId: 7 }, /"accountId" must be a string/],
  ['accounts:switch', undefined, /Expected an object/],
  ['connection:connect', { baseUrl: 'https://x.example' }, /Missing field "apiKey"/],
  ['connection:connect', { baseUrl: 'https://x.example', apiKey: '' }, /"apiKey" is empty/],
  ['connection:connect', { baseUrl: 'https://x.example', apiKey: 'abc def' }, /"apiKey" contains spaces/],
  ['connection:connect', { baseUrl: 'https://x.example', apiKey: 'abc\n' }, /"apiKey" contains spaces/],
  ['connection:connect', { baseUrl: 'https://x.example', apiKey: 'k\u0000' }, /"apiKey"/],
  ['connection:connect', { baseUrl: 'https://x.example', apiKey: 'k'.repeat(513) }, /"apiKey" is too long/],
  ['connection:connect', { baseUrl: 'https://x.example', apiKey: 42 }, /"apiKey" must be a string/],
  ['connection:connect', { baseUrl: 7, apiKey: 'abc' }, /"baseUrl" must be a string/],
  ['connection:connect', { baseUrl: 'https://x.example', apiKey: 'abc', remember: true }, /Unexpected field "remember"/],
  ['sets:list', { ...goodSets, perPage: 0 }, /"perPage" must be an integer from 1 to 200/],
  ['sets:list', { ...goodSets, perPage: 201 }, /"perPage"/],
  ['sets:list', { ...goodSets, page: 0 }, /"page"/],
  ['sets:list', { ...goodSets, status: 'accepted&x=1' }, /"status" must be a set status/],
  ['sets:list', { ...goodSets, status: 3 }, /"status" must be a string/],
  ['sets:list', { collectionId: 1, status: 'accepted', page: 1 }, /Missing field "perPage"/],
  ['settings:update', { concurrency: 0 }, /"concurrency" must be an integer from 1 to 16/],
  ['settings:update', { concurrency: 17 }, /"concurrency"/],
  ['settings:update', { concurrency: '4' }, /"concurrency"/],
  ['settings:update', { autoSyncMinutes: 14 }, /"autoSyncMinutes" must be null \(off\) or an integer from 15 to 60/],
  ['settings:update', { autoSyncMinutes: 61 }, /"autoSyncMinutes"/],
  ['settings:update', { excludeGold: 'yes' }, /"excludeGold" must be true or false/],
  ['settings:update', { baseUrl: 'https://x.example' }, /Unexpected field "baseUrl"/],
  ['settings:update', { bwlimitBytesPerSecond: -1 }, /"bwlimitBytesPerSecond" must be null \(no limit\) or an integer number of bytes per second from 10000/],
  ['settings:update', { bwlimitBytesPerSecond: 0 }, /"bwlimitBytesPerSecond"/],
  ['settings:update', { bwlimitBytesPerSecond: 2.5e6 + 0.5 }, /"bwlimitBytesPerSecond"/],
  ['settings:update', { bwlimitBytesPerSecond: '2M' }, /"bwlimitBytesPerSecond" must be null \(no limit\) or an integer .*, got string\./],
  ['settings:update', { bwlimitBytesPerSecond: 1e11 }, /"bwlimitBytesPerSecond"/],
  ['settings:update', null, /Expected an object/],
  ['sync:start', { collectionId: 1, full: 'true' }, /"full" must be true or false/],
  ['sync:start', { collectionId: 1, dest: '/tmp' }, /Unexpected field "dest"/],
  ['sync:start', { collectionId: 1, spaceConfirmed: 1 }, /"spaceConfirmed" must be true or false/],
  ...(['dataset:chooseBucket', 'dataset:testBucket'] as const).flatMap((c): Array<[string, unknown, RegExp]> => [
    [c, { collectionId: 1, location: { ...goodBucket, bucket: 'A_B' }, secretAccessKey: 's3cr3t' }, /"location.bucket" must be a bucket name/],
    [c, { collectionId: 1, location: { ...goodBucket, prefix: '../x' }, secretAccessKey: 's3cr3t' }, /"location.prefix" must be a prefix/],
    [c, { collectionId: 1, location: { ...goodBucket, prefix: '/abs' }, secretAccessKey: 's3cr3t' }, /"location.prefix"/],
    [c, { collectionId: 1, location: { ...goodBucket, accessKeyId: 'a b' }, secretAccessKey: 's3cr3t' }, /"location.accessKeyId"/],
    [c, { collectionId: 1, location: { ...goodBucket, secretAccessKey: 'x' }, secretAccessKey: 's3cr3t' }, /Unexpected field "location.secretAccessKey"|Unexpected field "secretAccessKey"/],
    [c, { collectionId: 1, location: goodBucket, secretAccessKey: 'has space' }, /"secretAccessKey" must be a secret access key/],
    [c, { collectionId: 1 }, /"location" must be an object/],
  ]),
  ['dataset:chooseBucket', { collectionId: 1, location: goodBucket }, /Missing field "secretAccessKey"/],
  ['dataset:setSubset', { collectionId: 1, slots: null }, /Missing field "groups"/],
  ['dataset:setSubset', { collectionId: 1, slots: 'greeting', groups: null }, /"slots" must be null \(all\) or a list of 1 to 500 names, got a string/],
  ['dataset:setSubset', { collectionId: 1, slots: [], groups: null }, /"slots" must be null \(all\) or a list/],
  ['dataset:setSubset', { collectionId: 1, slots: null, groups: ['18-29', 7] }, /"groups\[1\]" must be a string/],
  ['dataset:setSubset', { collectionId: 1, slots: ['a,b'], groups: null }, /"slots\[0\]" must be a slot key or quota group value/],
  ['dataset:setSubset', { collectionId: 1, slots: ['wave\n'], groups: null }, /"slots\[0\]" must be a slot key/],
  ['dataset:setSubset', { collectionId: 1, slots: ['x'.repeat(129)], groups: null }, /"slots\[0\]" is too long/],
  ['dataset:setSubset', { collectionId: 1, slots: null, groups: null, dest: '/tmp' }, /Unexpected field "dest"/],
  ['dataset:setSubset', { slots: null, groups: null }, /Missing field "collectionId"/],
  ['app:openExternal', {}, /Missing field "url"/],
  ['app:openExternal', { url: 5 }, /"url" must be a string/],
  ['app:openExternal', { url: 'file:///etc/passwd' }, /Only https/],
  ['app:openExternal', { url: 'javascript:alert(1)' }, /Only https/],
];

describe('argument validation', () => {
  it('covers every channel', () => {
    const covered = new Set(cases.map(([c]) => c));
    for (const channel of CORE_INVOKE_CHANNELS) expect(covered, channel).toContain(channel);
  });

  it.each(cases)('%s refuses %j', async (channel, arg, message) => {
    const result = await handlers[channel as keyof Handlers](arg);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe('invalid_argument');
    expect(result.error.message).toMatch(message);
    expect(JSON.stringify(result)).not.toMatch(/\n\s+at /);
  });

  it('a bad key is never echoed back', async () => {
    const result = await handlers['connection:connect']({ baseUrl: 'https://x.example', apiKey: 'secret value' });
    expect(JSON.stringify(result)).not.toContain('secret value');
  });

  it.each(['http://example.com', 'ftp://x.example', 'not a url', 'https://user:pw@x.example'])('connect with base URL %s -> base_url', async (baseUrl) => {
    const result = await handlers['connection:connect']({ baseUrl, apiKey: 'dsk_valid_looking_key' });
    expect(result).toMatchObject({ ok: false, error: { kind: 'base_url' } });
  });

  it('refusal happens before any side effect (no folder picker opened)', async () => {
    await handlers['dataset:pickFolder']({ collectionId: 'x' });
    expect(picks).toBe(0);
  });

  it('without a connection, service calls answer not_connected and folder calls no_folder', async () => {
    expect(await handlers['connection:get'](undefined)).toEqual({ ok: true, value: null });
    expect(await handlers['collections:list'](undefined)).toMatchObject({ ok: false, error: { kind: 'not_connected' } });
    expect(await handlers['sync:history']({ collectionId: 3 })).toMatchObject({ ok: false, error: { kind: 'no_folder' } });
    expect(await handlers['sync:start']({ collectionId: 3 })).toMatchObject({ ok: false, error: { kind: 'no_folder' } });
    expect(await handlers['settings:update']({ concurrency: 16, autoSyncMinutes: null })).toMatchObject({ ok: true, value: { concurrency: 16, autoSyncMinutes: null } });
    expect(await handlers['settings:update']({ bwlimitBytesPerSecond: 2_000_000 })).toMatchObject({ ok: true, value: { bwlimitBytesPerSecond: 2_000_000 } });
    expect(await handlers['settings:update']({ bwlimitBytesPerSecond: null })).toMatchObject({ ok: true, value: { bwlimitBytesPerSecond: null } });
    // Pause, resume and cancelling a verify with nothing running are harmless no-ops.
    for (const channel of ['sync:pause', 'sync:resume', 'verify:cancel'] as const) {
      expect(await handlers[channel]({ collectionId: 3 })).toMatchObject({ ok: true, value: { running: false, paused: false, verifying: false, lowSpace: null } });
    }
  });
});

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chooseSecretStore } from '../../src-main/secrets/choose-store';
import { createMemoryStore } from '../../src-main/secrets/memory-store';
import { createSafeStorageStore, type SafeStorageLike } from '../../src-main/secrets/safe-storage-store';
import { SecretStoreUnavailableError, type SecretStore } from '../../src-main/secrets/secret-store';
import { needsSecretService, SECRET_SERVICE_MISSING } from '../support/secret-service';

const run = promisify(execFile);
const KEY_A = 'dsk_live_AAAAaaaa1111';
const KEY_B = 'dsk_live_BBBBbbbb2222';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ds-secrets-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Stub at the safeStorage boundary only: a reversible transform standing in for OS encryption. */
function stubSafeStorage(backend = 'gnome_libsecret', available = true): SafeStorageLike {
  return {
    isEncryptionAvailable: () => available,
    encryptString: (s) => Buffer.from(`enc:${Buffer.from(s, 'utf8').toString('hex')}`),
    decryptString: (b) => {
      const text = b.toString('utf8');
      if (!text.startsWith('enc:')) throw new Error('bad ciphertext');
      return Buffer.from(text.slice(4), 'hex').toString('utf8');
    },
    getSelectedStorageBackend: () => backend,
  };
}

async function exerciseStore(store: SecretStore, a: string, b: string): Promise<void> {
  expect(await store.get(a)).toBeNull();
  await store.set(a, KEY_A);
  await store.set(b, KEY_B);
  expect(await store.get(a)).toBe(KEY_A);
  // A trailing slash names the same service.
  expect(await store.get(`${a}/`)).toBe(KEY_A);
  expect(await store.get(b)).toBe(KEY_B);
  expect(await store.delete(a)).toBe(true);
  expect(await store.delete(a)).toBe(false);
  expect(await store.get(a)).toBeNull();
  expect(await store.get(b)).toBe(KEY_B);
  // One entry per account within a base URL, apart from the base URL's own entry.
  await store.set(b, KEY_A, 'client-1');
  expect(await store.get(b, 'client-1')).toBe(KEY_A);
  expect(await store.get(b, 'client-2')).toBeNull();
  expect(await store.get(b)).toBe(KEY_B);
  expect(await store.delete(b, 'client-1')).toBe(true);
  expect(await store.get(b, 'client-1')).toBeNull();
  expect(await store.get(b)).toBe(KEY_B);
  await store.delete(b);
}

describe('memory store', () => {
  it('stores per base URL and can start with keys', async () => {
    await exerciseStore(createMemoryStore(), 'https://a.example/api/v1/partner', 'https://b.example/api/v1/partner');
    const seeded = createMemoryStore({ 'http://127.0.0.1:9/api': KEY_A });
    expect(seeded.kind).toBe('memory');
    expect(await seeded.get('http://127.0.0.1:9/api')).toBe(KEY_A);
  });
});

describe('safeStorage store', () => {
  it('keeps keys encrypted in a 0600 file, per base URL', async () => {
    const file = join(dir, 'nested', 'keys.json');
    const store = createSafeStorageStore(stubSafeStorage(), file, 'linux');
    expect(store.kind).toBe('safe-storage');
    await store.set('https://a.example/api', KEY_A);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(KEY_A);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // A second instance (next app start) reads what the first wrote.
    const again = createSafeStorageStore(stubSafeStorage(), file, 'linux');
    expect(await again.get('https://a.example/api')).toBe(KEY_A);
    await again.delete('https://a.example/api');
    await exerciseStore(again, 'https://a.example/api', 'https://b.example/api');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('refuses basic_text (a fixed password) on Linux and unavailable encryption', () => {
    expect(() => createSafeStorageStore(stubSafeStorage('basic_text'), join(dir, 'k.json'), 'linux')).toThrow(/basic_text/);
    expect(() => createSafeStorageStore(stubSafeStorage('gnome_libsecret', false), join(dir, 'k.json'), 'linux')).toThrow(SecretStoreUnavailableError);
  });

  it('reports a damaged file clearly', async () => {
    const file = join(dir, 'keys.json');
    await writeFile(file, '{not json');
    const store = createSafeStorageStore(stubSafeStorage(), file, 'linux');
    await expect(store.get('https://a.example/api')).rejects.toThrow(/damaged/);
  });
});

describe('chooseSecretStore', () => {
  const brokenKeychain: SecretStore = {
    kind: 'keychain',
    get: () => Promise.reject(new SecretStoreUnavailableError('no D-Bus')),
    set: () => Promise.reject(new SecretStoreUnavailableError('no D-Bus')),
    delete: () => Promise.reject(new SecretStoreUnavailableError('no D-Bus')),
  };

  it('falls back to safeStorage when the keychain fails and encryption is real', async () => {
    const chosen = await chooseSecretStore({ keychain: brokenKeychain, safeStorage: stubSafeStorage(), safeStorageFile: join(dir, 'k.json'), platform: 'linux' });
    expect(chosen.store.kind).toBe('safe-storage');
    expect(chosen.warning).toMatch(/encrypted/);
  });

  it('falls back to memory (with a warning) when safeStorage would be basic_text or is absent', async () => {
    const basic = await chooseSecretStore({ keychain: brokenKeychain, safeStorage: stubSafeStorage('basic_text'), safeStorageFile: join(dir, 'k.json'), platform: 'linux' });
    expect(basic.store.kind).toBe('memory');
    expect(basic.warning).toMatch(/in memory until you quit/);
    const none = await chooseSecretStore({ keychain: brokenKeychain });
    expect(none.store.kind).toBe('memory');
  });

  it('without D-Bus the real keytar probe fails and the chooser falls back cleanly (child process)', async () => {
    const script = join(dir, 'probe.mts');
    const chooser = fileURLToPath(new URL('../../src-main/secrets/choose-store.ts', import.meta.url));
    await writeFile(
      script,
      `import { chooseSecretStore } from ${JSON.stringify(chooser)};\n` +
        `const chosen = await chooseSecretStore();\n` +
        `await chosen.store.set('https://x.example/api', 'k-123456');\n` +
        `console.log(JSON.stringify({ kind: chosen.store.kind, warning: chosen.warning, back: await chosen.store.get('https://x.example/api') }));\n`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'no-such-bus')}` };
    delete env.DISPLAY;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', script], { env, cwd: process.cwd(), timeout: 30_000 });
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { kind: string; warning?: string; back: string };
    expect(result.kind).toBe('memory');
    expect(result.warning).toMatch(/keychain is unavailable/);
    expect(result.back).toBe('k-123456');
  });
});

// The real Secret Service: keytar against gnome-keyring. It runs in a private D-Bus session
// with a fresh keyring folder, so a login keyring left behind with another password (which
// stays locked) cannot make the test depend on the machine's history.
describe.skipIf(SECRET_SERVICE_MISSING !== null)(needsSecretService('real keychain (keytar + gnome-keyring)'), () => {
  it('is available, stores, reads and deletes per base URL and account entry, and is chosen first', async () => {
    const script = join(dir, 'keychain.mts');
    const src = (p: string) => JSON.stringify(fileURLToPath(new URL(`../../src-main/secrets/${p}`, import.meta.url)));
    await writeFile(
      script,
      `import { createKeychainStore, keychainAvailable } from ${src('keychain.ts')};\n` +
        `import { chooseSecretStore } from ${src('choose-store.ts')};\n` +
        `const store = createKeychainStore();\n` +
        `const a = 'https://a.example/api/v1/partner', b = 'https://b.example/api/v1/partner';\n` +
        `const out: Record<string, unknown> = { available: await keychainAvailable(store) };\n` +
        `await store.set(a, ${JSON.stringify(KEY_A)}); await store.set(b, ${JSON.stringify(KEY_B)});\n` +
        `out.readA = await store.get(a + '/'); out.readB = await store.get(b);\n` +
        `out.deleted = await store.delete(a); out.deletedAgain = await store.delete(a);\n` +
        `out.afterDeleteA = await store.get(a); out.afterDeleteB = await store.get(b);\n` +
        `await store.set(b, ${JSON.stringify(KEY_A)}, 'client-1'); out.entry = await store.get(b, 'client-1'); out.ownEntry = await store.get(b);\n` +
        `out.entryDeleted = await store.delete(b, 'client-1');\n` +
        `await store.delete(b);\n` +
        `const chosen = await chooseSecretStore(); out.chosen = chosen.store.kind; out.warning = chosen.warning ?? null;\n` +
        `console.log(JSON.stringify(out));\n`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_DATA_HOME: join(dir, 'data'), XDG_RUNTIME_DIR: dir };
    delete env.DBUS_SESSION_BUS_ADDRESS;
    const inner = `printf dataset-sync-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec "${process.execPath}" --import tsx "${script}"`;
    const { stdout } = await run('dbus-run-session', ['--', 'sh', '-c', inner], { env, cwd: process.cwd(), timeout: 30_000 });
    expect(JSON.parse(stdout.trim().split('\n').pop() ?? '{}')).toEqual({
      available: true,
      readA: KEY_A,
      readB: KEY_B,
      deleted: true,
      deletedAgain: false,
      afterDeleteA: null,
      afterDeleteB: KEY_B,
      entry: KEY_A,
      ownEntry: KEY_B,
      entryDeleted: true,
      chosen: 'keychain',
      warning: null,
    });
  });
});

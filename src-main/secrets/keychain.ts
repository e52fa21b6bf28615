// The OS keychain through keytar (Secret Service on Linux, Keychain on macOS, Credential
// Vault on Windows). No Electron import: the headless CLI uses this store directly.
import { createRequire } from 'node:module';
import { KEYCHAIN_ACCOUNT, keychainService, SecretStoreUnavailableError, type SecretStore } from './secret-store';

interface Keytar {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
  findCredentials(service: string): Promise<Array<{ account: string; password: string }>>;
}

function loadKeytar(): Keytar {
  try {
    // keytar is an optional native dependency: it may be missing where it could not build.
    return createRequire(import.meta.url)('keytar') as Keytar;
  } catch (e) {
    throw new SecretStoreUnavailableError('The OS keychain module (keytar) is not installed or failed to build.', { cause: e });
  }
}

async function guard<T>(what: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    throw new SecretStoreUnavailableError(`The OS keychain is not available (${what}): ${reason}`, { cause: e });
  }
}

/** Throws SecretStoreUnavailableError on use when there is no keychain (no keytar, no D-Bus, locked). */
export function createKeychainStore(): SecretStore {
  let keytar: Keytar | undefined;
  const kt = () => (keytar ??= loadKeytar());
  return {
    kind: 'keychain',
    get: (baseUrl, entry = KEYCHAIN_ACCOUNT) => guard('read', () => kt().getPassword(keychainService(baseUrl), entry)),
    set: (baseUrl, apiKey, entry = KEYCHAIN_ACCOUNT) => guard('write', () => kt().setPassword(keychainService(baseUrl), entry, apiKey)),
    delete: (baseUrl, entry = KEYCHAIN_ACCOUNT) => guard('delete', () => kt().deletePassword(keychainService(baseUrl), entry)),
  };
}

/** Every entry the keychain holds for a base URL (the CLI looks for the desktop app's account entries). */
export async function keychainEntries(baseUrl: string): Promise<Array<{ entry: string; apiKey: string }>> {
  const found = await guard('list', () => loadKeytar().findCredentials(keychainService(baseUrl)));
  return found.map((c) => ({ entry: c.account, apiKey: c.password }));
}

/** True when the keychain answers a harmless read; used to choose a fallback up front. */
export async function keychainAvailable(store: SecretStore = createKeychainStore()): Promise<boolean> {
  try {
    await store.get('probe://dataset-sync');
    return true;
  } catch {
    return false;
  }
}

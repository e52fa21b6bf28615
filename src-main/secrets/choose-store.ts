// Picks where API keys live: the OS keychain first, then safeStorage encryption into a 0600
// file, else memory only (with a warning for the user). Never plaintext on disk.
import { createKeychainStore, keychainAvailable } from './keychain';
import { createMemoryStore } from './memory-store';
import { createSafeStorageStore, safeStorageUnusableReason, type SafeStorageLike } from './safe-storage-store';
import type { SecretStore } from './secret-store';

export interface ChooseSecretStoreDeps {
  /** Defaults to the keytar keychain. */
  keychain?: SecretStore;
  /** Electron's safeStorage; absent outside Electron. */
  safeStorage?: SafeStorageLike;
  /** Where safeStorage keeps the encrypted keys (e.g. userData/keys.json). */
  safeStorageFile?: string;
  platform?: NodeJS.Platform;
}

export interface ChosenSecretStore {
  store: SecretStore;
  /** For the user, when keys are less protected or not persisted. */
  warning?: string;
}

export async function chooseSecretStore(deps: ChooseSecretStoreDeps = {}): Promise<ChosenSecretStore> {
  const keychain = deps.keychain ?? createKeychainStore();
  if (await keychainAvailable(keychain)) return { store: keychain };

  if (deps.safeStorage && deps.safeStorageFile) {
    const reason = safeStorageUnusableReason(deps.safeStorage, deps.platform);
    if (!reason) {
      return {
        store: createSafeStorageStore(deps.safeStorage, deps.safeStorageFile, deps.platform),
        warning: 'The OS keychain is unavailable: the key is stored encrypted in the app data folder instead.',
      };
    }
  }
  return {
    store: createMemoryStore(),
    warning: 'The OS keychain is unavailable: the key is kept in memory until you quit, and you will need to paste it again next time.',
  };
}

// Last-resort store: keys live in this process only and are gone when the app quits. Used
// when neither the OS keychain nor real encryption is available (never plaintext on disk).
import { keychainService, type SecretStore } from './secret-store';

export function createMemoryStore(initial?: Record<string, string>): SecretStore {
  const keys = new Map<string, string>();
  for (const [baseUrl, key] of Object.entries(initial ?? {})) keys.set(keychainService(baseUrl), key);
  return {
    kind: 'memory',
    get: async (baseUrl) => keys.get(keychainService(baseUrl)) ?? null,
    set: async (baseUrl, apiKey) => {
      keys.set(keychainService(baseUrl), apiKey);
    },
    delete: async (baseUrl) => keys.delete(keychainService(baseUrl)),
  };
}

// Last-resort store: keys live in this process only and are gone when the app quits. Used
// when neither the OS keychain nor real encryption is available (never plaintext on disk).
import { secretName, type SecretStore } from './secret-store';

export function createMemoryStore(initial?: Record<string, string>): SecretStore {
  const keys = new Map<string, string>();
  // Initial keys are the base URLs' own entries (as `login` or an older version stored them).
  for (const [baseUrl, key] of Object.entries(initial ?? {})) keys.set(secretName(baseUrl), key);
  return {
    kind: 'memory',
    get: async (baseUrl, entry) => keys.get(secretName(baseUrl, entry)) ?? null,
    set: async (baseUrl, apiKey, entry) => {
      keys.set(secretName(baseUrl, entry), apiKey);
    },
    delete: async (baseUrl, entry) => keys.delete(secretName(baseUrl, entry)),
  };
}

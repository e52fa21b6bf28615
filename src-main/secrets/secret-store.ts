// One interface for wherever API keys live. Keys are stored per base URL so a delivery key
// and a recruiter key (or two services) never overwrite each other.

export type SecretStoreKind = 'keychain' | 'safe-storage' | 'memory';

export interface SecretStore {
  readonly kind: SecretStoreKind;
  get(baseUrl: string): Promise<string | null>;
  set(baseUrl: string, apiKey: string): Promise<void>;
  /** Resolves true when a key was there to delete. */
  delete(baseUrl: string): Promise<boolean>;
}

export class SecretStoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SecretStoreUnavailableError';
  }
}

/** The keychain service name for a base URL; the account is always "api-key". */
export function keychainService(baseUrl: string): string {
  return `dataset-sync:${baseUrl.replace(/\/+$/, '')}`;
}

export const KEYCHAIN_ACCOUNT = 'api-key';

// One interface for wherever API keys live. Keys are stored per base URL and, within it, per
// entry: the app keeps one entry per account (client) of a service, so two accounts on one
// service, a delivery key and a recruiter key never overwrite each other. Without an entry
// name the base URL's own entry is used (the CLI's `login`, and keys stored by older versions).

import type { SecretStoreKind } from '../../src-shared/secret-store-kind';

export type { SecretStoreKind };

export interface SecretStore {
  readonly kind: SecretStoreKind;
  get(baseUrl: string, entry?: string): Promise<string | null>;
  set(baseUrl: string, apiKey: string, entry?: string): Promise<void>;
  /** Resolves true when a key was there to delete. */
  delete(baseUrl: string, entry?: string): Promise<boolean>;
}

export class SecretStoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SecretStoreUnavailableError';
  }
}

/** The keychain service name for a base URL. */
export function keychainService(baseUrl: string): string {
  return `dataset-sync:${baseUrl.replace(/\/+$/, '')}`;
}

/** The keychain account name of the base URL's own entry. */
export const KEYCHAIN_ACCOUNT = 'api-key';

/** One name per (base URL, entry) for stores that keep a flat map; the base URL's own entry keeps its old name. */
export function secretName(baseUrl: string, entry?: string): string {
  return entry === undefined ? keychainService(baseUrl) : `${keychainService(baseUrl)}#${entry}`;
}

/** The entry of an account's key: one per client of a service (the desktop app's accounts). */
export function accountEntry(clientId: number): string {
  return `client-${clientId}`;
}

/** The client id of an account entry's name; null for any other entry. */
export function clientOfEntry(entry: string): number | null {
  const m = /^client-(\d+)$/.exec(entry);
  return m ? Number(m[1]) : null;
}

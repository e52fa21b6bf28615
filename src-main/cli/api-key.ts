// Where the CLI gets the API key: DATASET_SYNC_API_KEY, else the OS keychain entry for the
// base URL. Missing keys are configuration errors (exit 2) with a message saying what to do.
import { createKeychainStore } from '../secrets/keychain';
import { SecretStoreUnavailableError } from '../secrets/secret-store';

export const API_KEY_ENV = 'DATASET_SYNC_API_KEY';

export class MissingKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingKeyError';
  }
}

export async function resolveApiKey(baseUrl: string): Promise<string> {
  const fromEnv = process.env[API_KEY_ENV];
  if (fromEnv && fromEnv.trim()) return fromEnv.trim();
  let stored: string | null;
  try {
    stored = await createKeychainStore().get(baseUrl);
  } catch (e) {
    if (e instanceof SecretStoreUnavailableError) {
      throw new MissingKeyError(
        `No API key: ${API_KEY_ENV} is not set and the OS keychain is unavailable (${e.message}). ` +
          `Set ${API_KEY_ENV} in the environment to provide the key.`,
      );
    }
    throw e;
  }
  if (!stored) {
    throw new MissingKeyError(`No API key for ${baseUrl}: run "dataset-sync login --base-url ${baseUrl}" (reads the key from stdin) or set ${API_KEY_ENV}.`);
  }
  return stored;
}

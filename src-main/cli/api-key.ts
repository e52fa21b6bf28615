// Where the CLI gets the API key: DATASET_SYNC_API_KEY, else the OS keychain: the base URL's own
// entry (`dataset-sync login`), else the desktop app's key for that service when it holds exactly
// one account there (the app keeps one entry per account, secret-store.ts). Missing keys are
// configuration errors (exit 2) with a message saying what to do.
import { createKeychainStore, keychainEntries } from '../secrets/keychain';
import { clientOfEntry, SecretStoreUnavailableError } from '../secrets/secret-store';

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
  const login = `run "dataset-sync login --base-url ${baseUrl}" (reads the key from stdin) or set ${API_KEY_ENV}`;
  try {
    const stored = await createKeychainStore().get(baseUrl);
    if (stored) return stored;
    const appKeys = (await keychainEntries(baseUrl)).filter((e) => clientOfEntry(e.entry) !== null);
    if (appKeys.length === 1) return appKeys[0]!.apiKey;
    if (appKeys.length > 1) {
      const clients = appKeys.map((e) => clientOfEntry(e.entry)!).sort((a, b) => a - b).join(', ');
      throw new MissingKeyError(`The desktop app holds keys for ${appKeys.length} accounts on ${baseUrl} (clients ${clients}) and the CLI cannot tell which one to use: ${login}.`);
    }
  } catch (e) {
    if (e instanceof SecretStoreUnavailableError) {
      throw new MissingKeyError(
        `No API key: ${API_KEY_ENV} is not set and the OS keychain is unavailable (${e.message}). ` +
          `Set ${API_KEY_ENV} in the environment to provide the key.`,
      );
    }
    throw e;
  }
  throw new MissingKeyError(`No API key for ${baseUrl}: ${login}.`);
}

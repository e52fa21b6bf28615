// Keys encrypted with Electron's safeStorage (DPAPI / Keychain-derived key / libsecret or
// kwallet) in one 0600 file. Written against a minimal interface so Node tests can stub the
// boundary; the real object is electron's `safeStorage`.
import { mkdir, readFile, rename, writeFile, chmod } from 'node:fs/promises';
import { dirname } from 'node:path';
import { secretName, SecretStoreUnavailableError, type SecretStore } from './secret-store';

export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: 'basic_text' means a hard-coded password, i.e. no real protection. */
  getSelectedStorageBackend?(): string;
}

/** Why safeStorage cannot protect a key here, or null when it can. */
export function safeStorageUnusableReason(safeStorage: SafeStorageLike, platform: NodeJS.Platform = process.platform): string | null {
  if (!safeStorage.isEncryptionAvailable()) return 'encryption is not available';
  if (platform === 'linux' && safeStorage.getSelectedStorageBackend) {
    const backend = safeStorage.getSelectedStorageBackend();
    // basic_text encrypts with a fixed, public password: as good as plaintext.
    if (backend === 'basic_text' || backend === 'unknown') return `the storage backend is "${backend}", which does not protect secrets`;
  }
  return null;
}

type FileContent = Record<string, string>; // secretName(baseUrl, entry) -> base64 ciphertext

async function readAll(file: string): Promise<FileContent> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new SecretStoreUnavailableError(`Cannot read the encrypted key file ${file}: ${(e as Error).message}`, { cause: e });
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    const out: FileContent = {};
    for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') out[k] = v;
    return out;
  } catch (e) {
    throw new SecretStoreUnavailableError(`The encrypted key file ${file} is damaged; remove it and connect again.`, { cause: e });
  }
}

async function writeAll(file: string, content: FileContent): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  // mode on create, then chmod again in case a umask or an old file interfered.
  await writeFile(temp, JSON.stringify(content), { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, file);
}

export function createSafeStorageStore(safeStorage: SafeStorageLike, file: string, platform: NodeJS.Platform = process.platform): SecretStore {
  const reason = safeStorageUnusableReason(safeStorage, platform);
  if (reason) throw new SecretStoreUnavailableError(`Encrypted key storage is unavailable: ${reason}.`);
  // Serialise writes so two quick set/delete calls never lose each other's update.
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(op: () => Promise<T>): Promise<T> => {
    const run = queue.then(op, op);
    queue = run.catch(() => undefined);
    return run;
  };
  return {
    kind: 'safe-storage',
    get: (baseUrl, entry) =>
      exclusive(async () => {
        const sealed = (await readAll(file))[secretName(baseUrl, entry)];
        if (sealed === undefined) return null;
        try {
          return safeStorage.decryptString(Buffer.from(sealed, 'base64'));
        } catch (e) {
          throw new SecretStoreUnavailableError('A stored key could not be decrypted (the OS key may have changed); connect again.', { cause: e });
        }
      }),
    set: (baseUrl, apiKey, entry) =>
      exclusive(async () => {
        const all = await readAll(file);
        all[secretName(baseUrl, entry)] = safeStorage.encryptString(apiKey).toString('base64');
        await writeAll(file, all);
      }),
    delete: (baseUrl, entry) =>
      exclusive(async () => {
        const all = await readAll(file);
        const name = secretName(baseUrl, entry);
        if (!(name in all)) return false;
        delete all[name];
        await writeAll(file, all);
        return true;
      }),
  };
}

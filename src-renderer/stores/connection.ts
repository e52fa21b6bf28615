import { create } from 'zustand';
import type { ConnectionInfo, IpcError } from '../../src-shared/ipc-contract';
import { invoke } from '../api';
import { useCollections } from './collections';
import { useDataset } from './dataset';
import { useNotices } from './notices';
import { useSettings } from './settings';
import { useSync } from './sync';

export type ConnectionStatus = 'unknown' | 'checking' | 'connected' | 'disconnected';

interface ConnectionStore {
  status: ConnectionStatus;
  info: ConnectionInfo | null;
  /** The last failed connect attempt, shown on the connect form until the next attempt. */
  error: IpcError | null;
  busy: boolean;
  load(): Promise<void>;
  connect(baseUrl: string, apiKey: string): Promise<boolean>;
  forget(): Promise<void>;
  /** Makes another known account the active one; without a stored key for it, the connect form shows. */
  switchAccount(accountId: string): Promise<void>;
}

/** Another account's collections, folders and syncs must not linger on screen. */
function accountChanged(): void {
  useCollections.getState().reset();
  useSync.getState().reset();
  useDataset.getState().reset();
  useNotices.getState().forgetAccountNotices();
  void useSettings.getState().load();
}

export const useConnection = create<ConnectionStore>((set) => ({
  status: 'unknown',
  info: null,
  error: null,
  busy: false,

  async load() {
    set({ status: 'checking' });
    const result = await invoke('connection:get', undefined);
    if (result.ok && result.value) set({ status: 'connected', info: result.value, error: null });
    else set({ status: 'disconnected', info: null, error: result.ok ? null : result.error });
  },

  async connect(baseUrl, apiKey) {
    set({ busy: true, error: null });
    const result = await invoke('connection:connect', { baseUrl: baseUrl.trim(), apiKey: apiKey.trim() });
    if (result.ok) {
      set({ busy: false, status: 'connected', info: result.value, error: null });
      accountChanged();
      return true;
    }
    set({ busy: false, error: result.error });
    return false;
  },

  async forget() {
    set({ busy: true });
    const result = await invoke('connection:forget', undefined);
    if (result.ok) {
      set({ busy: false, status: 'disconnected', info: null, error: null });
      accountChanged();
    } else set({ busy: false, error: result.error });
  },

  async switchAccount(accountId) {
    set({ busy: true, error: null });
    const result = await invoke('accounts:switch', { accountId });
    if (result.ok) set({ busy: false, status: result.value ? 'connected' : 'disconnected', info: result.value, error: null });
    else set({ busy: false, status: 'disconnected', info: null, error: result.error });
    accountChanged();
  },
}));

/** What to tell a researcher for each way connecting can fail; the bridge's own message follows as detail. */
export function describeConnectError(error: IpcError, baseUrl: string): string {
  switch (error.kind) {
    case 'auth':
      return 'The service rejected this API key. Check that it was copied in full and has not been revoked or expired.';
    case 'forbidden':
      return 'This API key is not allowed to read collections (it needs the collections:read scope).';
    case 'network':
      return `Could not reach the service at ${baseUrl || 'this address'}. Check the address and your network connection.`;
    case 'base_url':
      return 'The base URL must start with https:// (plain http:// is allowed only for 127.0.0.1, localhost and [::1]).';
    case 'invalid_argument':
      return 'Enter both the base URL and the API key.';
    case 'malformed':
      return 'The address answered, but not like the delivery API. Check that the base URL ends in /api/v1/partner.';
    case 'server':
      return 'The service had an internal error. Try again in a few minutes.';
    case 'keychain':
      return 'The key was accepted but could not be stored in the secret store.';
    default:
      return 'Connecting failed.';
  }
}

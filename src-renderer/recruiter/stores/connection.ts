// The recruiter connection as the UI knows it: never the key, only what /me said about it.
import { create } from 'zustand';
import type { IpcError } from '../../../src-shared/ipc-contract';
import type { RecruiterConnectionInfo } from '../../../src-shared/recruiter-ipc-contract';
import { invoke } from '../../api';

export type RecruiterStatus = 'unknown' | 'checking' | 'connected' | 'disconnected';

interface RecruiterConnectionStore {
  status: RecruiterStatus;
  info: RecruiterConnectionInfo | null;
  /** Why checking the stored key failed (e.g. it was revoked), shown above the connect form. */
  loadError: IpcError | null;
  /** Why the last connect attempt failed, shown in the form until the next attempt. */
  error: IpcError | null;
  busy: boolean;
  load(): Promise<void>;
  connect(baseUrl: string, apiKey: string): Promise<boolean>;
  forget(): Promise<void>;
}

export const useRecruiterConnection = create<RecruiterConnectionStore>((set) => ({
  status: 'unknown',
  info: null,
  loadError: null,
  error: null,
  busy: false,

  async load() {
    set({ status: 'checking' });
    const result = await invoke('recruiter:connection:get', undefined);
    if (result.ok && result.value) set({ status: 'connected', info: result.value, loadError: null });
    else set({ status: 'disconnected', info: null, loadError: result.ok ? null : result.error });
  },

  async connect(baseUrl, apiKey) {
    set({ busy: true, error: null, loadError: null });
    const result = await invoke('recruiter:connect', { baseUrl: baseUrl.trim(), apiKey: apiKey.trim() });
    if (result.ok) {
      set({ busy: false, status: 'connected', info: result.value, error: null });
      return true;
    }
    set({ busy: false, error: result.error });
    return false;
  },

  async forget() {
    set({ busy: true });
    const result = await invoke('recruiter:forget', undefined);
    if (result.ok) set({ busy: false, status: 'disconnected', info: null, error: null });
    else set({ busy: false, error: result.error });
  },
}));

export function describeRecruiterConnectError(error: IpcError): string {
  switch (error.kind) {
    case 'auth':
      return 'The recruiter API rejected this key. Check that it was copied in full and has not been revoked.';
    case 'network':
      return 'Could not reach the recruiter API at this address.';
    case 'base_url':
      return 'Check the address: https:// (http:// only for 127.0.0.1, localhost and [::1]), and the recruiter API, not the delivery one.';
    case 'invalid_argument':
      return 'Enter both the recruiter API address and a key.';
    case 'malformed':
      return 'The address answered, but not like the recruiter API. It should end in /api/v1/recruiter.';
    case 'keychain':
      return 'The key was accepted but could not be stored in the secret store.';
    default:
      return 'Connecting to the recruiter API failed.';
  }
}

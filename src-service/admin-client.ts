// Typed HTTP client of the admin interface, for tests, benchmarks and the demo.
// Every method throws AdminError on a non-2xx answer, with the service's message.

import type { MediaFaultEntry, MediaFaultKind } from './admin/media-faults';
import type { Fault, FaultEntry, FaultMatch } from './faults';
import type { StatsSnapshot } from './stats';

export type { Fault, FaultEntry, FaultMatch } from './faults';
export type { MediaFaultEntry, MediaFaultKind } from './admin/media-faults';
export type { StatsSnapshot, TimelineEvent } from './stats';

/** Set as the delivery API serializes it (kept loose: the service side owns no client types). */
export type AdminSetJson = {
  id: number;
  status: string;
  updated_at: string;
  accepted_at: string | null;
  is_gold: boolean;
  files: Array<{ id: number; slot_index: number; filename: string; size_bytes: number; sha256: string; url: string }>;
  participants: Array<{ id: number; role: string; participant_ref: string; consent: null | { id: number; url: string } }>;
  [field: string]: unknown;
};

export interface AdminState {
  collections: Array<{
    id: number;
    client: string;
    client_id: number;
    /** null: the collection serves real demo videos. */
    file_size: number | null;
    slots: number;
    accepted_set_ids: number[];
    accepted_sets: Array<{
      id: number;
      accepted_at: string | null;
      updated_at: string;
      is_gold: boolean;
      consent_ids: number[];
      files: Array<{ id: number; slot_index: number; filename: string; size_bytes: number; sha256: string }>;
    }>;
    counts: Record<string, number>;
  }>;
}

export type SetStatusName = 'accepted' | 'in_review' | 'rework' | 'rejected' | 'in_progress';

export class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'AdminError';
  }
}

export class AdminClient {
  /**
   * `baseUrl` is the admin base, e.g. http://127.0.0.1:1234/admin; `token` the service's
   * per-run admin token (RunningService.adminToken, or `adminToken` of the demo's JSON line);
   * `fetchImpl` e.g. one that trusts the test CA of a service in HTTPS mode.
   */
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async addSets(collectionId: number, opts: { count?: number; is_gold?: boolean; consent_null?: boolean } = {}): Promise<AdminSetJson[]> {
    return (await this.call<{ sets: AdminSetJson[] }>('POST', `/collections/${collectionId}/sets`, opts)).sets;
  }

  /** New body (new sha256) for one slot (default 1); `filename` replaces the served name verbatim; `size_bytes` changes the size. */
  async editSet(setId: number, opts: { slot_index?: number; filename?: string; size_bytes?: number } = {}): Promise<AdminSetJson> {
    return (await this.call<{ set: AdminSetJson }>('POST', `/sets/${setId}/edit`, opts)).set;
  }

  async setStatus(setId: number, status: SetStatusName): Promise<AdminSetJson> {
    return (await this.call<{ set: AdminSetJson }>('POST', `/sets/${setId}/status`, { status })).set;
  }

  async revokeKey(apiKey: string): Promise<void> {
    await this.call('POST', '/keys/revoke', { api_key: apiKey });
  }

  /** Returns the fault id. `times` omitted = active until cleared. */
  async addFault(match: FaultMatch, fault: Fault, times?: number): Promise<number> {
    const body = times === undefined ? { match, fault } : { match, fault, times };
    return (await this.call<{ id: number }>('POST', '/faults', body)).id;
  }

  async listFaults(): Promise<FaultEntry[]> {
    return (await this.call<{ faults: FaultEntry[] }>('GET', '/faults')).faults;
  }

  /** Clears the request faults and the media faults. */
  async clearFaults(): Promise<void> {
    await this.call('DELETE', '/faults');
  }

  /**
   * Switches a media fault on for one file (default: slot 1 of a set of the main collection
   * chosen by the kind); the answer names the set, slot and file.
   */
  async addMediaFault(kind: MediaFaultKind, target: { set_id?: number; slot_index?: number } = {}): Promise<MediaFaultEntry> {
    return this.call<MediaFaultEntry>('POST', '/media-faults', { kind, ...target });
  }

  async listMediaFaults(): Promise<MediaFaultEntry[]> {
    return (await this.call<{ media_faults: MediaFaultEntry[] }>('GET', '/media-faults')).media_faults;
  }

  async clearMediaFaults(): Promise<void> {
    await this.call('DELETE', '/media-faults');
  }

  async deleteMediaFault(id: number): Promise<void> {
    await this.call('DELETE', `/media-faults/${id}`);
  }

  async deleteFault(id: number): Promise<void> {
    await this.call('DELETE', `/faults/${id}`);
  }

  async stats(): Promise<StatsSnapshot> {
    return this.call<StatsSnapshot>('GET', '/stats');
  }

  async resetStats(): Promise<void> {
    await this.call('POST', '/stats/reset');
  }

  async state(): Promise<AdminState> {
    return this.call<AdminState>('GET', '/state');
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    // Every POST goes out as JSON (the admin interface refuses other types), even an empty one.
    const json = body ?? (method === 'POST' ? {} : undefined);
    const res = await this.fetchImpl(`${this.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new AdminError(res.status, `admin ${method} ${path}: answer is not JSON (HTTP ${res.status})`);
    }
    if (!res.ok) {
      const message = (parsed as { error?: unknown }).error;
      throw new AdminError(res.status, `admin ${method} ${path}: HTTP ${res.status}: ${typeof message === 'string' ? message : text}`);
    }
    return parsed as T;
  }
}

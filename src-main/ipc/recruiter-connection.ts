// The app's connection to the recruiter API, separate from the delivery connection: its own
// base URL setting (recruiterBaseUrl) and its own secret-store entry, keyed by the recruiter
// base URL so it never overwrites the delivery key. The key lives only here and in the secret
// store; what crosses to the renderer is what GET /me says about it.
import { createRecruiterClient, type RecruiterClient } from '../api/recruiter-client';
import type { RecruiterMe } from '../api/recruiter-types';
import type { SecretStore } from '../secrets/secret-store';
import type { SettingsStore } from '../settings/settings-store';
import { IpcFailure } from './ipc-failure';
import type { RecruiterConnectionInfo } from './recruiter-contract';

export interface RecruiterCredentials {
  baseUrl: string;
  apiKey: string;
}

export interface RecruiterConnectionDeps {
  secrets: SecretStore;
  settings: SettingsStore;
  secretStoreWarning?: string;
  /** Defaults to createRecruiterClient. */
  createClient?: (credentials: RecruiterCredentials) => RecruiterClient;
}

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

export class RecruiterConnection {
  private credentials: RecruiterCredentials | null = null;
  private client: RecruiterClient | null = null;
  private cachedInfo: RecruiterConnectionInfo | null = null;
  /** Every recruiter key this process has held, so messages stay redacted even after forget. */
  private readonly seenKeys = new Set<string>();
  private readonly createClient: (credentials: RecruiterCredentials) => RecruiterClient;

  constructor(private readonly deps: RecruiterConnectionDeps) {
    this.createClient = deps.createClient ?? ((c) => createRecruiterClient({ baseUrl: c.baseUrl, apiKey: c.apiKey }));
  }

  secretsToRedact(): string[] {
    return [...this.seenKeys];
  }

  /** Scopes of the connected key as /me reported them, when known. */
  knownScopes(): string[] | null {
    return this.cachedInfo ? [...this.cachedInfo.key.scopes] : null;
  }

  private async current(): Promise<RecruiterCredentials | null> {
    if (this.credentials) return this.credentials;
    const baseUrl = this.deps.settings.recruiterBaseUrl();
    if (!baseUrl) return null;
    const apiKey = await this.deps.secrets.get(baseUrl);
    if (!apiKey) return null;
    this.seenKeys.add(apiKey);
    this.credentials = { baseUrl, apiKey };
    return this.credentials;
  }

  async recruiterClient(): Promise<RecruiterClient> {
    const credentials = await this.current();
    if (!credentials) throw new IpcFailure('not_connected', 'Not connected to the recruiter API: enter its address and a recruiter API key first.');
    this.client ??= this.createClient(credentials);
    return this.client;
  }

  /**
   * Checks the key with GET /me and stores it only when accepted; a refused key leaves the
   * previous recruiter connection as it was.
   */
  async connect(baseUrl: string, apiKey: string): Promise<RecruiterConnectionInfo> {
    this.seenKeys.add(apiKey);
    const deliveryBaseUrl = this.deps.settings.view().baseUrl;
    // Keys are stored per base URL: the same URL for both would let one key overwrite the other.
    if (deliveryBaseUrl && sameUrl(deliveryBaseUrl, baseUrl)) {
      throw new IpcFailure('base_url', 'This is the delivery service address. The recruiter API has its own address, ending in /api/v1/recruiter.');
    }
    const probe = this.createClient({ baseUrl, apiKey });
    let me: RecruiterMe;
    try {
      me = await probe.me();
      await this.deps.secrets.set(baseUrl, apiKey);
    } catch (e) {
      await probe.close().catch(() => undefined);
      throw e;
    }
    const previousBaseUrl = this.credentials?.baseUrl ?? this.deps.settings.recruiterBaseUrl();
    this.deps.settings.setRecruiterBaseUrl(baseUrl);
    // A key for another recruiter address must not linger in the secret store.
    if (previousBaseUrl && !sameUrl(previousBaseUrl, baseUrl) && !(deliveryBaseUrl && sameUrl(previousBaseUrl, deliveryBaseUrl))) {
      await this.deps.secrets.delete(previousBaseUrl).catch(() => false);
    }
    await this.dropClient();
    this.credentials = { baseUrl, apiKey };
    this.client = probe;
    this.cachedInfo = this.toInfo(baseUrl, me);
    return this.cachedInfo;
  }

  /** With a stored key and nothing cached (app start), asks GET /me so a revoked key shows at once. */
  async info(): Promise<RecruiterConnectionInfo | null> {
    if (this.cachedInfo) return this.cachedInfo;
    const credentials = await this.current();
    if (!credentials) return null;
    const me = await (await this.recruiterClient()).me();
    this.cachedInfo = this.toInfo(credentials.baseUrl, me);
    return this.cachedInfo;
  }

  /** Removes the stored recruiter key; the base URL stays so reconnecting is one paste. */
  async forget(): Promise<void> {
    const baseUrl = this.credentials?.baseUrl ?? this.deps.settings.recruiterBaseUrl();
    this.credentials = null;
    this.cachedInfo = null;
    await this.dropClient();
    const deliveryBaseUrl = this.deps.settings.view().baseUrl;
    if (baseUrl && !(deliveryBaseUrl && sameUrl(baseUrl, deliveryBaseUrl))) await this.deps.secrets.delete(baseUrl);
  }

  async close(): Promise<void> {
    await this.dropClient();
  }

  private async dropClient(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await client.close().catch(() => undefined);
  }

  private toInfo(baseUrl: string, me: RecruiterMe): RecruiterConnectionInfo {
    const info: RecruiterConnectionInfo = {
      baseUrl,
      organization: { id: me.organization.id, name: me.organization.name },
      key: { name: me.key.name, prefix: me.key.prefix, scopes: [...me.key.scopes] },
      secretStore: this.deps.secrets.kind,
    };
    if (this.deps.secretStoreWarning) info.secretStoreWarning = this.deps.secretStoreWarning;
    return info;
  }
}

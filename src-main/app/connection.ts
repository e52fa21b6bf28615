// The app's one connection to the delivery service. The key is read from the secret store
// once and then kept only in this object (main-process memory); it never goes to settings,
// events or IPC results.
import { createDeliveryClient, type DeliveryClient } from '../api/delivery-client';
import type { Me } from '../api/types';
import type { ConnectionInfo } from '../ipc/contract';
import { IpcFailure } from '../ipc/ipc-failure';
import type { SecretStore } from '../secrets/secret-store';
import type { SettingsStore } from '../settings/settings-store';

export interface Credentials {
  baseUrl: string;
  apiKey: string;
}

export interface ConnectionManagerDeps {
  secrets: SecretStore;
  settings: SettingsStore;
  /** Shown with every ConnectionInfo when the secret store is a fallback. */
  secretStoreWarning?: string;
  /** For tests that need other client options; defaults to createDeliveryClient. */
  createClient?: (credentials: Credentials) => DeliveryClient;
}

export class ConnectionManager {
  private credentials: Credentials | null = null;
  private client: DeliveryClient | null = null;
  private cachedInfo: ConnectionInfo | null = null;
  /** Every key this process has held, so error messages can be redacted even after forget. */
  private readonly seenKeys = new Set<string>();
  private readonly createClient: (credentials: Credentials) => DeliveryClient;

  constructor(private readonly deps: ConnectionManagerDeps) {
    this.createClient = deps.createClient ?? ((c) => createDeliveryClient({ baseUrl: c.baseUrl, apiKey: c.apiKey }));
  }

  get secretStoreKind() {
    return this.deps.secrets.kind;
  }

  secretsToRedact(): string[] {
    return [...this.seenKeys];
  }

  /** The stored credentials, or null when no base URL or no key is stored. */
  async current(): Promise<Credentials | null> {
    if (this.credentials) return this.credentials;
    const baseUrl = this.deps.settings.view().baseUrl;
    if (!baseUrl) return null;
    const apiKey = await this.deps.secrets.get(baseUrl);
    if (!apiKey) return null;
    this.seenKeys.add(apiKey);
    this.credentials = { baseUrl, apiKey };
    return this.credentials;
  }

  async requireCredentials(): Promise<Credentials> {
    const credentials = await this.current();
    if (!credentials) throw new IpcFailure('not_connected', 'Not connected: enter the service address and an API key first.');
    return credentials;
  }

  async deliveryClient(): Promise<DeliveryClient> {
    const credentials = await this.requireCredentials();
    this.client ??= this.createClient(credentials);
    return this.client;
  }

  /**
   * Checks the key with GET /me against the (already validated) base URL and stores it only
   * when the service accepted it; a rejected key leaves the previous connection untouched.
   */
  async connect(baseUrl: string, apiKey: string): Promise<ConnectionInfo> {
    this.seenKeys.add(apiKey);
    const probe = this.createClient({ baseUrl, apiKey });
    let me: Me;
    try {
      me = await probe.me();
    } catch (e) {
      await probe.close().catch(() => undefined);
      throw e;
    }
    try {
      await this.deps.secrets.set(baseUrl, apiKey);
    } catch (e) {
      await probe.close().catch(() => undefined);
      throw e;
    }
    this.deps.settings.setBaseUrl(baseUrl);
    await this.dropClient();
    this.credentials = { baseUrl, apiKey };
    this.client = probe;
    this.cachedInfo = this.toInfo(baseUrl, me);
    return this.cachedInfo;
  }

  /**
   * What the UI shows about the connection. With a stored key and nothing cached (app
   * start), asks GET /me, so a revoked key surfaces as an 'auth' error right away.
   */
  async info(): Promise<ConnectionInfo | null> {
    if (this.cachedInfo) return this.cachedInfo;
    const credentials = await this.current();
    if (!credentials) return null;
    const me = await (await this.deliveryClient()).me();
    this.cachedInfo = this.toInfo(credentials.baseUrl, me);
    return this.cachedInfo;
  }

  /** Removes the stored key; the base URL stays in settings so reconnecting is one paste. */
  async forget(): Promise<void> {
    const baseUrl = this.credentials?.baseUrl ?? this.deps.settings.view().baseUrl;
    this.credentials = null;
    this.cachedInfo = null;
    await this.dropClient();
    if (baseUrl) await this.deps.secrets.delete(baseUrl);
  }

  async close(): Promise<void> {
    await this.dropClient();
  }

  private async dropClient(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await client.close().catch(() => undefined);
  }

  private toInfo(baseUrl: string, me: Me): ConnectionInfo {
    const info: ConnectionInfo = {
      baseUrl,
      client: { id: me.client.id, name: me.client.name, email: me.client.email },
      apiKey: { name: me.api_key.name, prefix: me.api_key.prefix, scopes: [...me.api_key.scopes] },
      secretStore: this.deps.secrets.kind,
    };
    if (this.deps.secretStoreWarning) info.secretStoreWarning = this.deps.secretStoreWarning;
    return info;
  }
}

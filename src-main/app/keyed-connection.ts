// One API connection held by the main process: a base URL from settings, its key from the
// secret store, and a client built from both. The delivery and recruiter connections differ
// only in which setting holds the base URL, which client they build and what /me returns.
// The key is read from the secret store once and then kept only in this object; it never
// goes to settings, events or IPC results.
import { IpcFailure } from '../ipc/ipc-failure';
import type { SecretStore } from '../secrets/secret-store';

export interface Credentials {
  baseUrl: string;
  apiKey: string;
}

interface ApiClient<Me> {
  me(): Promise<Me>;
  close(): Promise<void>;
}

export interface KeyedConnectionOptions<Client extends ApiClient<Me>, Me, Info> {
  secrets: SecretStore;
  readBaseUrl(): string | null;
  writeBaseUrl(baseUrl: string): void;
  createClient(credentials: Credentials): Client;
  toInfo(baseUrl: string, me: Me): Info;
  notConnectedMessage: string;
  /** Refuses a base URL before any request is made (throws an IpcFailure). */
  checkBaseUrl?(baseUrl: string): void;
  /** Whether the key stored under this base URL may be deleted (default: yes). */
  mayDeleteKey?(baseUrl: string): boolean;
  /** Delete the key of the previous base URL when connecting to another one. */
  forgetPreviousKey?: boolean;
}

export const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

export class KeyedConnection<Client extends ApiClient<Me>, Me, Info> {
  private credentials: Credentials | null = null;
  private client: Client | null = null;
  protected cachedInfo: Info | null = null;
  /** Every key this process has held, so error messages stay redacted even after forget. */
  private readonly seenKeys = new Set<string>();

  constructor(private readonly options: KeyedConnectionOptions<Client, Me, Info>) {}

  get secretStoreKind() {
    return this.options.secrets.kind;
  }

  secretsToRedact(): string[] {
    return [...this.seenKeys];
  }

  /** The stored credentials, or null when no base URL or no key is stored. */
  async current(): Promise<Credentials | null> {
    if (this.credentials) return this.credentials;
    const baseUrl = this.options.readBaseUrl();
    if (!baseUrl) return null;
    const apiKey = await this.options.secrets.get(baseUrl);
    if (!apiKey) return null;
    this.seenKeys.add(apiKey);
    this.credentials = { baseUrl, apiKey };
    return this.credentials;
  }

  async requireCredentials(): Promise<Credentials> {
    const credentials = await this.current();
    if (!credentials) throw new IpcFailure('not_connected', this.options.notConnectedMessage);
    return credentials;
  }

  async apiClient(): Promise<Client> {
    const credentials = await this.requireCredentials();
    this.client ??= this.options.createClient(credentials);
    return this.client;
  }

  /**
   * Checks the key with GET /me against the (already validated) base URL and stores it only
   * when the service accepted it; a rejected key leaves the previous connection untouched.
   */
  async connect(baseUrl: string, apiKey: string): Promise<Info> {
    this.seenKeys.add(apiKey);
    this.options.checkBaseUrl?.(baseUrl);
    const probe = this.options.createClient({ baseUrl, apiKey });
    let me: Me;
    try {
      me = await probe.me();
      await this.options.secrets.set(baseUrl, apiKey);
    } catch (e) {
      await probe.close().catch(() => undefined);
      throw e;
    }
    const previousBaseUrl = this.credentials?.baseUrl ?? this.options.readBaseUrl();
    this.options.writeBaseUrl(baseUrl);
    // A key for an address no longer in use must not linger in the secret store.
    if (this.options.forgetPreviousKey && previousBaseUrl && !sameUrl(previousBaseUrl, baseUrl) && this.mayDeleteKey(previousBaseUrl)) {
      await this.options.secrets.delete(previousBaseUrl).catch(() => false);
    }
    await this.dropClient();
    this.credentials = { baseUrl, apiKey };
    this.client = probe;
    this.cachedInfo = this.options.toInfo(baseUrl, me);
    return this.cachedInfo;
  }

  /**
   * What the UI shows about the connection. With a stored key and nothing cached (app
   * start), asks GET /me, so a revoked key surfaces as an 'auth' error right away.
   */
  async info(): Promise<Info | null> {
    if (this.cachedInfo) return this.cachedInfo;
    const credentials = await this.current();
    if (!credentials) return null;
    const me = await (await this.apiClient()).me();
    this.cachedInfo = this.options.toInfo(credentials.baseUrl, me);
    return this.cachedInfo;
  }

  /** Removes the stored key; the base URL stays in settings so reconnecting is one paste. */
  async forget(): Promise<void> {
    const baseUrl = this.credentials?.baseUrl ?? this.options.readBaseUrl();
    this.credentials = null;
    this.cachedInfo = null;
    await this.dropClient();
    if (baseUrl && this.mayDeleteKey(baseUrl)) await this.options.secrets.delete(baseUrl);
  }

  async close(): Promise<void> {
    await this.dropClient();
  }

  private mayDeleteKey(baseUrl: string): boolean {
    return this.options.mayDeleteKey?.(baseUrl) ?? true;
  }

  private async dropClient(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await client.close().catch(() => undefined);
  }
}



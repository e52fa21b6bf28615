// One API connection held by the main process: a base URL and its key, and a client built
// from both. The delivery and recruiter connections differ only in where the address and key
// are kept (a KeyBook), which client they build and what /me returns.
// The key is read from the secret store once and then kept only in this object; it never
// goes to settings, events or IPC results.
import { AppError } from './app-error';

export interface Credentials {
  baseUrl: string;
  apiKey: string;
}

interface ApiClient<Me> {
  me(): Promise<Me>;
  close(): Promise<void>;
}

/** Where a connection's address and key are kept. */
export interface KeyBook<Me> {
  /** The selected base URL and its stored key, or null when either is missing. */
  load(): Promise<Credentials | null>;
  /** GET /me accepted `credentials`: store the key and select them. */
  save(credentials: Credentials, me: Me): Promise<void>;
  /** GET /me confirmed the stored key (e.g. at app start): a chance to record whom it belongs to. */
  confirmed?(credentials: Credentials, me: Me): Promise<void>;
  /** Removes the key of the selected (or given) connection. */
  remove(credentials: Credentials | null): Promise<void>;
}

export interface KeyedConnectionOptions<Client extends ApiClient<Me>, Me, Info> {
  book: KeyBook<Me>;
  createClient(credentials: Credentials): Client;
  toInfo(baseUrl: string, me: Me): Info;
  notConnectedMessage: string;
  /** Refuses a base URL before any request is made (throws an AppError); returns it normalised. */
  checkBaseUrl(baseUrl: string): string;
}

export class KeyedConnection<Client extends ApiClient<Me>, Me, Info> {
  private credentials: Credentials | null = null;
  private client: Client | null = null;
  protected cachedInfo: Info | null = null;
  /** Every key this process has held, so error messages stay redacted even after forget. */
  private readonly seenKeys = new Set<string>();

  constructor(private readonly options: KeyedConnectionOptions<Client, Me, Info>) {}

  secretsToRedact(): string[] {
    return [...this.seenKeys];
  }

  /** A key read outside current() (another account's) is redacted from messages too. */
  protected noteKey(apiKey: string): void {
    this.seenKeys.add(apiKey);
  }

  /** The stored credentials, or null when no base URL or no key is stored. */
  async current(): Promise<Credentials | null> {
    if (this.credentials) return this.credentials;
    const credentials = await this.options.book.load();
    if (!credentials) return null;
    this.seenKeys.add(credentials.apiKey);
    this.credentials = credentials;
    return credentials;
  }

  async requireCredentials(): Promise<Credentials> {
    const credentials = await this.current();
    if (!credentials) throw new AppError('not_connected', this.options.notConnectedMessage);
    return credentials;
  }

  async apiClient(): Promise<Client> {
    const credentials = await this.requireCredentials();
    this.client ??= this.options.createClient(credentials);
    return this.client;
  }

  /**
   * Checks the key with GET /me and stores it only when the service accepted it; a rejected
   * key leaves the previous connection untouched.
   */
  async connect(baseUrl: string, apiKey: string): Promise<Info> {
    this.seenKeys.add(apiKey);
    const url = this.options.checkBaseUrl(baseUrl);
    const probe = this.options.createClient({ baseUrl: url, apiKey });
    let me: Me;
    try {
      me = await probe.me();
      await this.options.book.save({ baseUrl: url, apiKey }, me);
    } catch (e) {
      await probe.close().catch(() => undefined);
      throw e;
    }
    await this.dropClient();
    this.credentials = { baseUrl: url, apiKey };
    this.client = probe;
    this.cachedInfo = this.options.toInfo(url, me);
    return this.cachedInfo;
  }

  /**
   * What the UI shows about the connection. With a stored key and nothing cached (app
   * start, or another account selected), asks GET /me, so a revoked key surfaces as an
   * 'auth' error right away.
   */
  async info(): Promise<Info | null> {
    if (this.cachedInfo) return this.cachedInfo;
    const credentials = await this.current();
    if (!credentials) return null;
    const me = await (await this.apiClient()).me();
    await this.options.book.confirmed?.(credentials, me);
    this.cachedInfo = this.options.toInfo(credentials.baseUrl, me);
    return this.cachedInfo;
  }

  /** Removes the stored key; the address stays so reconnecting is one paste. */
  async forget(): Promise<void> {
    const credentials = await this.current().catch(() => null);
    await this.reset();
    await this.options.book.remove(credentials);
  }

  /** Drops the client and what is cached, e.g. when another account is selected. */
  async reset(): Promise<void> {
    this.credentials = null;
    this.cachedInfo = null;
    await this.dropClient();
  }

  async close(): Promise<void> {
    await this.dropClient();
  }

  private async dropClient(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await client.close().catch(() => undefined);
  }
}

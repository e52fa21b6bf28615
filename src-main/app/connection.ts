// The app's connection to the delivery service, over the accounts in settings: connecting
// with a key records the account it belongs to (base URL + the client GET /me names), and
// selects it. Each account's key has its own secret-store entry; keys stored before accounts
// existed (or by the CLI's `login`) sit in the base URL's own entry and are still found there.
// The rules every connection follows are in keyed-connection.ts.
import { validateBaseUrl } from '../api/base-url';
import { createDeliveryClient, type DeliveryClient } from '../api/delivery-client';
import type { Me } from '../../src-shared/delivery-api';
import { accountEntry, type SecretStore } from '../secrets/secret-store';
import { newAccountId } from '../settings/migrate';
import { sameUrl, type SettingsStore } from '../settings/settings-store';
import type { ConnectionInfo } from '../../src-shared/ipc-contract';
import type { Account } from '../../src-shared/settings';
import { AppError } from './app-error';
import { KeyedConnection, type Credentials } from './keyed-connection';

export type { Credentials } from './keyed-connection';

export interface ConnectionManagerDeps {
  secrets: SecretStore;
  settings: SettingsStore;
  /** Shown with every ConnectionInfo when the secret store is a fallback. */
  secretStoreWarning?: string;
  /** For tests that need other client options; defaults to createDeliveryClient. */
  createClient?: (credentials: Credentials) => DeliveryClient;
}

/** The secret-store entry of an account's key; undefined = the base URL's own entry (client not yet known). */
export function keyEntryOf(account: Account): string | undefined {
  return account.client ? accountEntry(account.client.id) : undefined;
}

/** The account a key for `client` at `baseUrl` belongs to: known already, adopted (client unknown so far), or new. */
function accountFor(accounts: Account[], baseUrl: string, client: Me['client']): Account {
  const onService = accounts.filter((a) => sameUrl(a.baseUrl, baseUrl));
  const known = onService.find((a) => a.client?.id === client.id) ?? onService.find((a) => a.client === null);
  return { id: known?.id ?? newAccountId(), baseUrl, client: { id: client.id, name: client.name } };
}

export class ConnectionManager extends KeyedConnection<DeliveryClient, Me, ConnectionInfo> {
  private readonly settings: SettingsStore;
  private readonly secrets: SecretStore;

  constructor(deps: ConnectionManagerDeps) {
    const { secrets, settings } = deps;
    super({
      book: {
        load: async () => {
          const account = settings.activeAccount();
          return account ? this.credentialsFor(account.id) : null;
        },
        save: async ({ baseUrl, apiKey }, me) => {
          const account = accountFor(settings.accounts(), baseUrl, me.client);
          await secrets.set(baseUrl, apiKey, keyEntryOf(account));
          settings.saveAccount(account);
          settings.setActiveAccount(account.id);
        },
        confirmed: async ({ baseUrl, apiKey }, me) => {
          // An account migrated from an older version learns whom its key belongs to, and
          // the key gets the account's own entry.
          const account = settings.activeAccount();
          if (!account || account.client !== null) return;
          const named = { ...account, client: { id: me.client.id, name: me.client.name } };
          await secrets.set(baseUrl, apiKey, keyEntryOf(named));
          settings.saveAccount(named);
        },
        remove: async (credentials) => {
          const account = settings.activeAccount();
          if (!account) return;
          const entry = keyEntryOf(account);
          if (entry) await secrets.delete(account.baseUrl, entry);
          // The base URL's own entry goes too when it is where this key came from.
          const shared = await secrets.get(account.baseUrl);
          if (shared !== null && (entry === undefined || shared === credentials?.apiKey)) await secrets.delete(account.baseUrl);
        },
      },
      createClient: deps.createClient ?? ((c) => createDeliveryClient({ baseUrl: c.baseUrl, apiKey: c.apiKey })),
      notConnectedMessage: 'Not connected: enter the service address and an API key first.',
      checkBaseUrl: (baseUrl) => validateBaseUrl(baseUrl),
      toInfo: (baseUrl, me) => {
        const info: ConnectionInfo = {
          accountId: settings.activeAccount()?.id ?? '',
          baseUrl,
          client: { id: me.client.id, name: me.client.name, email: me.client.email },
          apiKey: { name: me.api_key.name, prefix: me.api_key.prefix, scopes: [...me.api_key.scopes] },
          secretStore: secrets.kind,
        };
        if (deps.secretStoreWarning) info.secretStoreWarning = deps.secretStoreWarning;
        return info;
      },
    });
    this.settings = settings;
    this.secrets = secrets;
  }

  deliveryClient(): Promise<DeliveryClient> {
    return this.apiClient();
  }

  /** The active account's id; not_connected when there is none. */
  activeAccountId(): string {
    const account = this.settings.activeAccount();
    if (!account) throw new AppError('not_connected', 'Not connected: enter the service address and an API key first.');
    return account.id;
  }

  /** Any known account's address and key (auto-sync runs for every account), or null without a key. */
  async credentialsFor(accountId: string): Promise<Credentials | null> {
    const account = this.settings.accounts().find((a) => a.id === accountId);
    if (!account) return null;
    const entry = keyEntryOf(account);
    const apiKey = (entry ? await this.secrets.get(account.baseUrl, entry) : null) ?? (await this.secrets.get(account.baseUrl));
    if (!apiKey) return null;
    this.noteKey(apiKey);
    return { baseUrl: account.baseUrl, apiKey };
  }

  /** Selects another known account; its connection info, or null when no key is stored for it. */
  async switchAccount(accountId: string): Promise<ConnectionInfo | null> {
    if (!this.settings.accounts().some((a) => a.id === accountId)) throw new AppError('refused', `There is no account "${accountId}"; connect to add one.`);
    this.settings.setActiveAccount(accountId);
    await this.reset();
    return this.info();
  }
}

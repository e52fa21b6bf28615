// The app's connection to the recruiter API, separate from the delivery connection: its own
// base URL setting (recruiterBaseUrl) and its own secret-store entry, keyed by the recruiter
// base URL so it never overwrites a delivery key (rules shared with every connection in
// keyed-connection.ts).
import { validateBaseUrl } from '../api/base-url';
import { createRecruiterClient, type RecruiterClient } from '../api/recruiter-client';
import type { RecruiterMe } from '../../src-shared/recruiter-api';
import type { SecretStore } from '../secrets/secret-store';
import { sameUrl, type SettingsStore } from '../settings/settings-store';
import type { RecruiterConnectionInfo } from '../../src-shared/recruiter-ipc-contract';
import { AppError } from './app-error';
import { KeyedConnection, type Credentials } from './keyed-connection';

export type RecruiterCredentials = Credentials;

export interface RecruiterConnectionDeps {
  secrets: SecretStore;
  settings: SettingsStore;
  secretStoreWarning?: string;
  /** Defaults to createRecruiterClient. */
  createClient?: (credentials: RecruiterCredentials) => RecruiterClient;
}

export class RecruiterConnection extends KeyedConnection<RecruiterClient, RecruiterMe, RecruiterConnectionInfo> {
  constructor(deps: RecruiterConnectionDeps) {
    const { secrets, settings } = deps;
    // Keys are stored per base URL: the same URL for both would let one key overwrite the other.
    const isDeliveryUrl = (baseUrl: string) => settings.accounts().some((a) => sameUrl(a.baseUrl, baseUrl));
    const deleteUnlessDelivery = async (baseUrl: string | null) => {
      if (baseUrl && !isDeliveryUrl(baseUrl)) await secrets.delete(baseUrl);
    };
    super({
      book: {
        load: async () => {
          const baseUrl = settings.recruiterBaseUrl();
          const apiKey = baseUrl ? await secrets.get(baseUrl) : null;
          return baseUrl && apiKey ? { baseUrl, apiKey } : null;
        },
        save: async ({ baseUrl, apiKey }) => {
          await secrets.set(baseUrl, apiKey);
          const previous = settings.recruiterBaseUrl();
          settings.setRecruiterBaseUrl(baseUrl);
          // A key for an address no longer in use must not linger in the secret store.
          if (previous && !sameUrl(previous, baseUrl)) await deleteUnlessDelivery(previous).catch(() => undefined);
        },
        remove: async (credentials) => deleteUnlessDelivery(credentials?.baseUrl ?? settings.recruiterBaseUrl()),
      },
      createClient: deps.createClient ?? ((c) => createRecruiterClient({ baseUrl: c.baseUrl, apiKey: c.apiKey })),
      notConnectedMessage: 'Not connected to the recruiter API: enter its address and a recruiter API key first.',
      checkBaseUrl: (baseUrl) => {
        const url = validateBaseUrl(baseUrl);
        if (isDeliveryUrl(url)) {
          throw new AppError('base_url', 'This is the delivery service address. The recruiter API has its own address, ending in /api/v1/recruiter.');
        }
        return url;
      },
      toInfo: (baseUrl, me) => {
        const info: RecruiterConnectionInfo = {
          baseUrl,
          organization: { id: me.organization.id, name: me.organization.name },
          key: { name: me.key.name, prefix: me.key.prefix, scopes: [...me.key.scopes] },
          secretStore: secrets.kind,
        };
        if (deps.secretStoreWarning) info.secretStoreWarning = deps.secretStoreWarning;
        return info;
      },
    });
  }

  recruiterClient(): Promise<RecruiterClient> {
    return this.apiClient();
  }

  /** Scopes of the connected key as /me reported them, when known. */
  knownScopes(): string[] | null {
    return this.cachedInfo ? [...this.cachedInfo.key.scopes] : null;
  }
}

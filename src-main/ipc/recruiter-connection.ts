// The app's connection to the recruiter API, separate from the delivery connection: its own
// base URL setting (recruiterBaseUrl) and its own secret-store entry, keyed by the recruiter
// base URL so it never overwrites the delivery key (rules shared with every connection in
// app/keyed-connection.ts).
import { createRecruiterClient, type RecruiterClient } from '../api/recruiter-client';
import type { RecruiterMe } from '../../src-shared/recruiter-api';
import { KeyedConnection, sameUrl, type Credentials } from '../app/keyed-connection';
import type { SecretStore } from '../secrets/secret-store';
import type { SettingsStore } from '../settings/settings-store';
import { IpcFailure } from './ipc-failure';
import type { RecruiterConnectionInfo } from './recruiter-contract';

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
    const isDeliveryUrl = (baseUrl: string) => {
      const deliveryBaseUrl = deps.settings.view().baseUrl;
      return deliveryBaseUrl !== null && sameUrl(deliveryBaseUrl, baseUrl);
    };
    super({
      secrets: deps.secrets,
      readBaseUrl: () => deps.settings.recruiterBaseUrl(),
      writeBaseUrl: (baseUrl) => deps.settings.setRecruiterBaseUrl(baseUrl),
      createClient: deps.createClient ?? ((c) => createRecruiterClient({ baseUrl: c.baseUrl, apiKey: c.apiKey })),
      notConnectedMessage: 'Not connected to the recruiter API: enter its address and a recruiter API key first.',
      // Keys are stored per base URL: the same URL for both would let one key overwrite the other.
      checkBaseUrl: (baseUrl) => {
        if (isDeliveryUrl(baseUrl)) {
          throw new IpcFailure('base_url', 'This is the delivery service address. The recruiter API has its own address, ending in /api/v1/recruiter.');
        }
      },
      mayDeleteKey: (baseUrl) => !isDeliveryUrl(baseUrl),
      forgetPreviousKey: true,
      toInfo: (baseUrl, me) => {
        const info: RecruiterConnectionInfo = {
          baseUrl,
          organization: { id: me.organization.id, name: me.organization.name },
          key: { name: me.key.name, prefix: me.key.prefix, scopes: [...me.key.scopes] },
          secretStore: deps.secrets.kind,
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

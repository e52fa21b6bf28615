// The app's one connection to the delivery service (see keyed-connection.ts for the rules
// every connection follows).
import { createDeliveryClient, type DeliveryClient } from '../api/delivery-client';
import type { Me } from '../../src-shared/delivery-api';
import type { ConnectionInfo } from '../ipc/contract';
import type { SecretStore } from '../secrets/secret-store';
import type { SettingsStore } from '../settings/settings-store';
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

export class ConnectionManager extends KeyedConnection<DeliveryClient, Me, ConnectionInfo> {
  constructor(deps: ConnectionManagerDeps) {
    super({
      secrets: deps.secrets,
      readBaseUrl: () => deps.settings.view().baseUrl,
      writeBaseUrl: (baseUrl) => deps.settings.setBaseUrl(baseUrl),
      createClient: deps.createClient ?? ((c) => createDeliveryClient({ baseUrl: c.baseUrl, apiKey: c.apiKey })),
      notConnectedMessage: 'Not connected: enter the service address and an API key first.',
      toInfo: (baseUrl, me) => {
        const info: ConnectionInfo = {
          baseUrl,
          client: { id: me.client.id, name: me.client.name, email: me.client.email },
          apiKey: { name: me.api_key.name, prefix: me.api_key.prefix, scopes: [...me.api_key.scopes] },
          secretStore: deps.secrets.kind,
        };
        if (deps.secretStoreWarning) info.secretStoreWarning = deps.secretStoreWarning;
        return info;
      },
    });
  }

  deliveryClient(): Promise<DeliveryClient> {
    return this.apiClient();
  }
}

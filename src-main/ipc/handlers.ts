// One async function per invoke channel: validate the argument, do the work in main, and
// answer an IpcResult. Failures are values (IpcError), never exceptions, never stacks, and
// never contain an API key. No Electron import here or below: the same handlers back the
// app (ipcMain) and the browser test bridge (WebSocket).
import type { SetsPage } from '../../src-shared/delivery-api';
import { ConnectionManager } from '../app/connection';
import { checkExternalUrl, UnsafeExternalUrlError } from '../app/security';
import { SyncController, type Emit } from '../app/sync-controller';
import type { SecretStore } from '../secrets/secret-store';
import type { SettingsStore } from '../settings/settings-store';
import { readHistory } from '../sync/history';
import { verifyDataset } from '../sync/verify';
import type { CollectionListItem, CoreInvokeChannels, IpcResult } from './contract';
import type { CoreInvokeChannel } from './channels';
import { IpcFailure } from './ipc-failure';
import { RecruiterConnection } from './recruiter-connection';
import { createRecruiterHandlers, type RecruiterHandlers } from './recruiter-handlers';
import { toIpcError } from './to-ipc-error';
import { validators } from './validate';

export interface HandlerDeps {
  secrets: SecretStore;
  /** From chooseSecretStore, shown in ConnectionInfo when keys are less protected. */
  secretStoreWarning?: string;
  settings: SettingsStore;
  pickFolder(): Promise<string | null>;
  showItemInFolder(path: string): void;
  openExternal(url: string): Promise<void>;
  notify(title: string, body: string): void;
  emit: Emit;
  /** Shared with the scheduler and quit handling; created here when absent. */
  connection?: ConnectionManager;
  recruiter?: RecruiterConnection;
  syncs?: SyncController;
  /** Called after settings:update so the scheduler can pick up a new interval. */
  onSettingsChanged?: () => void;
  log?: (message: string, error: unknown) => void;
}

export type Handlers = {
  [C in CoreInvokeChannel]: (arg: unknown) => Promise<IpcResult<CoreInvokeChannels[C]['result']>>;
} & RecruiterHandlers;

type Impl = { [C in CoreInvokeChannel]: (arg: CoreInvokeChannels[C]['arg']) => Promise<CoreInvokeChannels[C]['result']> };

/** Consent signer names are personal data: they never cross to the renderer. */
export function stripSignerNames(page: SetsPage): SetsPage {
  return {
    ...page,
    sets: page.sets.map((set) => ({
      ...set,
      participants: set.participants.map((p) => {
        if (!p.consent) return p;
        const { signer_name: _omitted, ...consent } = p.consent;
        return { ...p, consent: consent as typeof p.consent };
      }),
    })),
  };
}

export function createHandlers(deps: HandlerDeps): Handlers {
  const connection = deps.connection ?? new ConnectionManager({ secrets: deps.secrets, settings: deps.settings, secretStoreWarning: deps.secretStoreWarning });
  const syncs = deps.syncs ?? new SyncController({ connection, settings: deps.settings, emit: deps.emit, notify: deps.notify });

  const requireDest = (collectionId: number): string => {
    const dataset = deps.settings.collectionDataset(collectionId);
    if (!dataset) throw new IpcFailure('no_folder', `No dataset folder is chosen for collection ${collectionId}.`);
    return dataset.dest;
  };

  const impl: Impl = {
    'connection:get': () => connection.info(),
    'connection:connect': ({ baseUrl, apiKey }) => connection.connect(baseUrl, apiKey),
    'connection:forget': async () => {
      await syncs.cancelAll();
      await connection.forget();
      return null;
    },
    'collections:list': async () => {
      const client = await connection.deliveryClient();
      const collections = await client.listCollections();
      return Promise.all(
        collections.map(async (c): Promise<CollectionListItem> => {
          const dataset = deps.settings.collectionDataset(c.id);
          const last = dataset ? ((await readHistory(dataset.dest).catch(() => []))[0] ?? null) : null;
          return {
            ...c,
            dest: dataset?.dest ?? null,
            lastSync: last && {
              finishedAt: last.finishedAt,
              exitCode: last.exitCode,
              filesDownloaded: last.filesDownloaded,
              filesFailed: last.filesFailed,
              cancelled: last.cancelled,
            },
          };
        }),
      );
    },
    'collections:get': async ({ collectionId }) => (await connection.deliveryClient()).getCollection(collectionId),
    'sets:list': async ({ collectionId, status, page, perPage }) =>
      stripSignerNames(await (await connection.deliveryClient()).listSets(collectionId, { status, page, perPage })),
    'settings:get': async () => deps.settings.view(),
    'settings:update': async (patch) => {
      const view = deps.settings.update(patch);
      deps.onSettingsChanged?.();
      return view;
    },
    'dataset:pickFolder': async ({ collectionId }) => {
      const folder = await deps.pickFolder();
      if (folder === null) return null;
      // A new folder means a new dataset: a consents folder chosen for the old one is dropped
      // and the engine's default (a sibling of the new folder) applies.
      const dataset = { dest: folder };
      deps.settings.setCollectionDataset(collectionId, dataset);
      return dataset;
    },
    'dataset:showInFolder': async ({ collectionId }) => {
      deps.showItemInFolder(requireDest(collectionId));
      return null;
    },
    'sync:start': ({ collectionId, full }) => syncs.start(collectionId, full === undefined ? {} : { full }),
    'sync:cancel': ({ collectionId }) => syncs.cancel(collectionId),
    'sync:state': ({ collectionId }) => syncs.state(collectionId),
    'sync:history': async ({ collectionId }) => readHistory(requireDest(collectionId)),
    'verify:run': async ({ collectionId }) => {
      const dest = requireDest(collectionId);
      return syncs.exclusive(collectionId, () => verifyDataset(dest));
    },
    'app:openExternal': async ({ url }) => {
      let safe: string;
      try {
        safe = checkExternalUrl(url);
      } catch (e) {
        if (e instanceof UnsafeExternalUrlError) throw new IpcFailure('invalid_argument', e.message);
        throw e;
      }
      await deps.openExternal(safe);
      return null;
    },
  };

  const wrap = <C extends CoreInvokeChannel>(channel: C) => {
    const validate = validators[channel] as (arg: unknown) => CoreInvokeChannels[C]['arg'];
    const run = impl[channel] as (arg: CoreInvokeChannels[C]['arg']) => Promise<CoreInvokeChannels[C]['result']>;
    return async (arg: unknown): Promise<IpcResult<CoreInvokeChannels[C]['result']>> => {
      try {
        return { ok: true, value: await run(validate(arg)) };
      } catch (e) {
        return { ok: false, error: toIpcError(e, connection.secretsToRedact(), deps.log) };
      }
    };
  };

  const handlers = {} as Record<CoreInvokeChannel, (arg: unknown) => Promise<IpcResult<unknown>>>;
  for (const channel of Object.keys(impl) as CoreInvokeChannel[]) handlers[channel] = wrap(channel);
  // The recruiter channels have their own connection (key and base URL); the delivery key is
  // redacted from their messages too.
  const recruiter = createRecruiterHandlers({
    secrets: deps.secrets,
    settings: deps.settings,
    ...(deps.secretStoreWarning ? { secretStoreWarning: deps.secretStoreWarning } : {}),
    ...(deps.recruiter ? { recruiter: deps.recruiter } : {}),
    otherSecretsToRedact: () => connection.secretsToRedact(),
    ...(deps.log ? { log: deps.log } : {}),
  });
  return { ...(handlers as Omit<Handlers, keyof RecruiterHandlers>), ...recruiter } as Handlers;
}

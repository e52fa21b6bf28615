// One async function per invoke channel: check the argument against the shared contract's
// schema, let the app layer do the work, and answer an IpcResult. Failures are values
// (IpcError), never exceptions, never stacks, and never contain an API key. No Electron import
// here or below: the same handlers back the app (ipcMain) and the browser test bridge.
import type { AppServices } from '../app/services';
import { checkExternalUrl } from '../app/security';
import { coreArgSchemas, type CoreArgs, type CoreInvokeChannels, type IpcResult } from '../../src-shared/ipc-contract';
import type { CoreInvokeChannel } from '../../src-shared/ipc-channels';
import { ELECTRON_MEDIA_BASE } from '../app/media/media-request';
import { handle } from './handle';
import { createRecruiterHandlers, type RecruiterHandlers } from './recruiter-handlers';
import { toIpcError } from './to-ipc-error';

/** What only the shell (Electron, or the test bridge) can do. */
export interface ShellDeps {
  pickFolder(): Promise<string | null>;
  showItemInFolder(path: string): void;
  openExternal(url: string): Promise<void>;
  /** Where the window loads media from (default: the Electron protocol's dataset-media://local/). */
  mediaBaseUrl?: string;
  log?: (message: string, error: unknown) => void;
}

export type Handlers = {
  [C in CoreInvokeChannel]: (arg: unknown) => Promise<IpcResult<CoreInvokeChannels[C]['result']>>;
} & RecruiterHandlers;

type Impl = { [C in CoreInvokeChannel]: (arg: CoreArgs[C]) => Promise<CoreInvokeChannels[C]['result']> };

export function createHandlers(app: AppServices, shell: ShellDeps): Handlers {
  const { connection, datasets, syncs, settings } = app;

  const impl: Impl = {
    'connection:get': () => connection.info(),
    'connection:connect': ({ baseUrl, apiKey }) => connection.connect(baseUrl, apiKey),
    'connection:forget': async () => {
      app.syncAll.stop(connection.activeAccountId());
      await syncs.cancelAll(connection.activeAccountId());
      await connection.forget();
      return null;
    },
    'accounts:switch': ({ accountId }) => connection.switchAccount(accountId),
    'collections:list': () => datasets.list(),
    'collections:get': async ({ collectionId }) => (await connection.deliveryClient()).getCollection(collectionId),
    'sets:list': ({ collectionId, status, page, perPage }) => datasets.sets(collectionId, { status, page, perPage }),
    'settings:get': async () => settings.view(),
    'settings:update': async (patch) => {
      const view = settings.update(patch);
      app.scheduler.reschedule();
      return view;
    },
    'dataset:pickFolder': async ({ collectionId }) => {
      connection.activeAccountId(); // not_connected before a picker opens for no account
      const folder = await shell.pickFolder();
      return folder === null ? null : datasets.choose(collectionId, folder);
    },
    'dataset:showInFolder': async ({ collectionId }) => {
      shell.showItemInFolder(datasets.folder(collectionId).dest);
      return null;
    },
    'dataset:showConsents': async ({ collectionId }) => {
      shell.showItemInFolder((await datasets.card(collectionId)).consentsDir);
      return null;
    },
    'dataset:card': ({ collectionId }) => datasets.card(collectionId),
    'dataset:chooseBucket': ({ collectionId, location, secretAccessKey }) => datasets.chooseBucket(collectionId, location, secretAccessKey),
    'dataset:testBucket': async ({ location, secretAccessKey }) => app.buckets.test(location, secretAccessKey),
    'sync:start': ({ collectionId, full, spaceConfirmed }) => syncs.start(datasets.ref(collectionId), { full: full ?? false, spaceConfirmed: spaceConfirmed ?? false }),
    'sync:repair': ({ collectionId }) => syncs.start(datasets.ref(collectionId), { repair: true }),
    'sync:cancel': ({ collectionId }) => syncs.cancel(datasets.ref(collectionId)),
    'sync:pause': async ({ collectionId }) => syncs.pause(datasets.ref(collectionId)),
    'sync:resume': async ({ collectionId }) => syncs.resume(datasets.ref(collectionId)),
    'sync:state': ({ collectionId }) => syncs.state(datasets.ref(collectionId)),
    'sync:history': ({ collectionId }) => datasets.history(collectionId),
    'verify:run': ({ collectionId }) => datasets.verify(collectionId),
    'verify:cancel': ({ collectionId }) => syncs.cancelVerify(datasets.ref(collectionId)),
    'app:openExternal': async ({ url }) => {
      await shell.openExternal(checkExternalUrl(url));
      return null;
    },
    'autosync:next': async () => app.scheduler.next(),
    'sync:all': async () => app.syncAll.start(connection.activeAccountId()),
    'dataset:sets': ({ collectionId, ...query }) => app.media.sets(collectionId, query),
    'dataset:reveal': ({ collectionId, setId, filename }) => app.media.reveal(collectionId, setId, filename),
    'media:base': async () => shell.mediaBaseUrl ?? ELECTRON_MEDIA_BASE,
    'dataset:setSubset': async ({ collectionId, slots, groups }) => datasets.setSubset(collectionId, { slots, groups }),
    'dataset:withdrawn': ({ collectionId }) => datasets.withdrawn(collectionId),
    'dataset:purgeWithdrawn': ({ collectionId }) => datasets.purgeWithdrawn(collectionId),
  };

  const toError = (e: unknown) => toIpcError(e, [...connection.secretsToRedact(), ...app.buckets.secretsToRedact()], shell.log);
  const handlers = {} as Record<CoreInvokeChannel, (arg: unknown) => Promise<IpcResult<unknown>>>;
  for (const channel of Object.keys(impl) as CoreInvokeChannel[]) {
    handlers[channel] = handle(coreArgSchemas[channel], impl[channel] as (arg: unknown) => Promise<unknown>, toError);
  }
  // The recruiter channels have their own connection (key and base URL); the delivery key is
  // redacted from their messages too.
  const recruiter = createRecruiterHandlers({
    recruiter: app.recruiter,
    otherSecretsToRedact: () => connection.secretsToRedact(),
    ...(shell.log ? { log: shell.log } : {}),
  });
  return { ...(handlers as Omit<Handlers, keyof RecruiterHandlers>), ...recruiter } as Handlers;
}

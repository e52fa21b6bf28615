// Wires the main process's parts together once: connection, sync controller, scheduler and
// the IPC handlers over them. Used by the Electron bootstrap and by the browser test bridge,
// so both run exactly the same code below the transport.
import { createHandlers, type HandlerDeps, type Handlers } from '../ipc/handlers';
import { RecruiterConnection } from '../ipc/recruiter-connection';
import { ConnectionManager } from './connection';
import { Scheduler } from './scheduler';
import { SyncController } from './sync-controller';

export type MainServicesDeps = Omit<HandlerDeps, 'connection' | 'recruiter' | 'syncs' | 'onSettingsChanged'> & {
  /** Batch interval for sync:events, default 250 ms. */
  batchIntervalMs?: number;
};

export interface MainServices {
  handlers: Handlers;
  connection: ConnectionManager;
  syncs: SyncController;
  scheduler: Scheduler;
  /** Cancels running syncs, waits for them to settle (partials stay), stops the timer. */
  shutdown(): Promise<void>;
}

export function createMainServices(deps: MainServicesDeps): MainServices {
  const connection = new ConnectionManager({ secrets: deps.secrets, settings: deps.settings, secretStoreWarning: deps.secretStoreWarning });
  const recruiter = new RecruiterConnection({ secrets: deps.secrets, settings: deps.settings, ...(deps.secretStoreWarning ? { secretStoreWarning: deps.secretStoreWarning } : {}) });
  const syncs = new SyncController({ connection, settings: deps.settings, emit: deps.emit, notify: deps.notify, batchIntervalMs: deps.batchIntervalMs });
  const scheduler = new Scheduler({ settings: deps.settings, connection, syncs, emit: deps.emit });
  const handlers = createHandlers({ ...deps, connection, recruiter, syncs, onSettingsChanged: () => scheduler.reschedule() });
  scheduler.reschedule();
  let closing: Promise<void> | null = null;
  return {
    handlers,
    connection,
    syncs,
    scheduler,
    shutdown: () =>
      (closing ??= (async () => {
        scheduler.stop();
        await syncs.cancelAll();
        await Promise.all([connection.close(), recruiter.close()]);
      })()),
  };
}

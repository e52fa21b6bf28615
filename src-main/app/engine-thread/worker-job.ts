// The app's syncs and repairs in a worker thread (issue #21: no event-loop stall of the main
// process over 50 ms): one engine thread per run (src-main/engine-worker.ts), started with the
// run's options, fed the controller's pause and resume, the cancel and the system proxy's
// answers; its events come back in batches and are handed to `onEvent` in order. A run lasts
// seconds to hours, so a thread per run (no pool) costs only its start-up.
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { SyncEvent, SyncOptions, SyncSummary } from '../../../src-shared/sync-events';
import { registeredSystemProxy } from '../../api/system-proxy';
import type { ControllablePauseGate } from '../../sync/engine';
import type { Shortfall } from '../space-check';
import type { BucketRecipe, FromWorker, ToWorker } from './messages';

export interface WorkerJobDeps {
  /** The controller's gate: its pauses and resumes are sent to the thread's own gate. */
  gate: ControllablePauseGate;
  /** A bucket dataset: the thread opens its destinations from this. */
  bucket?: BucketRecipe;
  /** A local dataset whose space question is not answered yet: the thread watches the free space, pauses itself before a file that would not fit, and this is called. */
  onHeld?: (shortfall: Shortfall) => void;
  /** A folder dataset: the thread writes the app's notes of the run (recordRunNotes) before it answers. */
  recordNotes?: boolean;
}

export type WorkerJob = (options: SyncOptions, onEvent: (e: SyncEvent) => void, deps: WorkerJobDeps) => Promise<SyncSummary>;

/**
 * The engine thread. From source (vitest, tsx: this module is a .ts file) the thread loads
 * tsx first so it can import the TypeScript entry; in the built app the entry is
 * out/main/engine-worker.js beside this bundle (electron.vite.config.ts).
 */
function startEngineThread(resourceLimits: ResourceLimits | undefined): Worker {
  const here = import.meta.url;
  const limits = resourceLimits ? { resourceLimits } : {};
  if (here.endsWith('.ts')) {
    const entry = new URL('../../engine-worker.ts', here).href;
    // Node 20 does not apply --import in a worker's execArgv: the thread registers tsx's hooks itself.
    const tsx = import.meta.resolve('tsx/esm/api');
    return new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`, { eval: true, ...limits });
  }
  return new Worker(new URL('./engine-worker.js', here), limits);
}

/**
 * A sync ('sync') or repair ('repair': verify, then fetch again what is missing or changed) in
 * its own thread. `resourceLimits` caps the thread's heap: an engine out of memory then ends
 * its thread (the run is reported as stopped unexpectedly), not the app.
 */
export function workerJob(kind: 'sync' | 'repair', resourceLimits?: ResourceLimits): WorkerJob {
  return (options, onEvent, deps) =>
    new Promise<SyncSummary>((resolve, reject) => {
      const { signal, ...plain } = options;
      const worker = startEngineThread(resourceLimits);
      const send = (message: ToWorker) => worker.postMessage(message);
      let settled = false;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        stopWatching();
        signal?.removeEventListener('abort', onAbort);
        outcome();
        void worker.terminate();
      };
      const stopWatching = deps.gate.onChange((paused) => send({ type: paused ? 'pause' : 'resume' }));
      const onAbort = () => send({ type: 'abort' });
      const system = registeredSystemProxy();

      worker.on('message', (message: FromWorker) => {
        switch (message.type) {
          case 'events':
            // A listener that throws here would be an uncaught exception of the app: it ends this run instead.
            try {
              for (const event of message.events) onEvent(event);
            } catch (e) {
              finish(() => reject(e as Error));
            }
            return;
          case 'held':
            // Already paused in the thread; the controller's gate shows it (its pause is sent, and is a no-op there).
            deps.gate.pause();
            deps.onHeld?.(message.shortfall);
            return;
          case 'proxy-ask':
            if (!system) return send({ type: 'proxy-error', id: message.id, message: 'no system proxy is registered' });
            system.resolveProxy(message.url).then(
              (answer) => send({ type: 'proxy-answer', id: message.id, answer: String(answer) }),
              (e: unknown) => send({ type: 'proxy-error', id: message.id, message: e instanceof Error ? e.message : String(e) }),
            );
            return;
          case 'proxy-notice':
            system?.onNotice?.(message.message);
            return;
          case 'done':
            return finish(() => resolve(message.summary));
          case 'crash': {
            const error = new Error(`The engine thread failed: ${message.message}`);
            if (message.stack) error.stack = message.stack;
            return finish(() => reject(error));
          }
        }
      });
      worker.on('error', (e) => finish(() => reject(e)));
      worker.on('exit', (code) => finish(() => reject(new Error(`The engine thread stopped (exit code ${code}) before the ${kind} ended.`))));

      send({
        type: 'start',
        kind,
        options: plain,
        paused: deps.gate.paused,
        ...(deps.bucket ? { bucket: deps.bucket } : {}),
        watchSpace: deps.onHeld !== undefined,
        recordNotes: deps.recordNotes === true,
        systemProxy: system !== undefined,
      });
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
}

// The engine thread of the desktop app (issue #21): one worker thread per sync or repair runs the
// engine here, so its synchronous work never stalls the window's main process. The main side
// (app/engine-thread/worker-job.ts) sends one start message, then pause / resume / abort and the
// system proxy's answers; this side sends the engine's events in batches, the low-space hold,
// and at the end the summary (or the crash). Built as its own entry beside the main bundle
// (electron.vite.config.ts); in tests and `tsx` runs it is loaded from source.
import { parentPort } from 'node:worker_threads';
import { registeredSystemProxy, useSystemProxy } from './api/system-proxy';
import { openBucketRun } from './app/bucket-locations';
import { readFreeBytes } from './app/dataset-card';
import { runEngineJob } from './app/engine-job';
import { EVENT_BATCH_MS, EVENT_BATCH_SIZE, type FromWorker, type StartMessage, type ToWorker } from './app/engine-thread/messages';
import { createEventBatcher } from './app/event-batcher';
import { lowerThisThreadsPriority } from './app/engine-thread/thread-priority';
import { createPauseGate, runRepair, runSync } from './sync/engine';

const port = parentPort;
if (!port) throw new Error('engine-worker.ts runs as a worker thread only.');
// Before any thread of the engine starts: the threads it starts (file writer, hashing) inherit it.
lowerThisThreadsPriority();
const post = (message: FromWorker) => port.postMessage(message);

const gate = createPauseGate();
const abort = new AbortController();
const proxyAsks = new Map<number, { resolve: (answer: string) => void; reject: (e: Error) => void }>();
let nextAsk = 1;
let started = false;

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'start':
      if (started) return;
      started = true;
      run(message).then(
        (summary) => post({ type: 'done', summary }),
        (e: unknown) => post({ type: 'crash', message: e instanceof Error ? e.message : String(e), ...(e instanceof Error && e.stack ? { stack: e.stack } : {}) }),
      );
      return;
    case 'pause':
      return gate.pause();
    case 'resume':
      return gate.resume();
    case 'abort':
      return abort.abort();
    case 'proxy-answer':
    case 'proxy-error': {
      const ask = proxyAsks.get(message.id);
      proxyAsks.delete(message.id);
      if (message.type === 'proxy-answer') ask?.resolve(message.answer);
      else ask?.reject(new Error(message.message));
      return;
    }
  }
});

async function run(start: StartMessage) {
  if (start.kind !== 'sync' && start.kind !== 'repair') throw new Error(`The engine thread was asked for an unknown run kind: ${String(start.kind)}.`);
  if (start.paused) gate.pause();
  if (start.systemProxy && !registeredSystemProxy()) {
    useSystemProxy({
      resolveProxy: (url) =>
        new Promise<string>((resolve, reject) => {
          const id = nextAsk++;
          proxyAsks.set(id, { resolve, reject });
          post({ type: 'proxy-ask', id, url });
        }),
      onNotice: (message) => post({ type: 'proxy-notice', message }),
    });
  }
  // In order, without the superseded ones (a first sync of 100,000 sets emits 1.4 million).
  const events = createEventBatcher((batch) => post({ type: 'events', events: batch }), EVENT_BATCH_MS, EVENT_BATCH_SIZE);
  const bucket = start.bucket ? openBucketRun(start.bucket.spec, start.bucket.credentials) : undefined;
  try {
    return await runEngineJob({
      kind: start.kind,
      run: start.kind === 'repair' ? (options, onEvent, deps) => runRepair(options, onEvent, undefined, deps) : runSync,
      options: { ...start.options, signal: abort.signal },
      gate,
      destinations: bucket,
      onEvent: (event) => events.push(event),
      watchSpace: start.watchSpace
        ? {
            readFreeBytes: () => readFreeBytes(start.options.dest),
            onHeld: (shortfall) => {
              // The events before the hold first, so the window sees what was queued before it asks.
              events.flush();
              post({ type: 'held', shortfall });
            },
          }
        : undefined,
      recordNotes: start.recordNotes,
    });
  } finally {
    events.flush();
    if (bucket) await Promise.all([bucket.destination, bucket.consents, bucket.withdrawn].map((d) => d.close().catch(() => undefined)));
  }
}

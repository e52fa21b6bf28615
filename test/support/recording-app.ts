// The app's main-process services (createMainServices) with a memory key store, recording what
// would cross IPC: every handler result, every pushed event and every notification, so a test
// can scan all of it (e.g. for the API key). `runToEnd` starts a sync or repair and waits for it.
import { createMainServices, type MainServices } from '../../src-main/ipc/services';
import { createMemoryStore } from '../../src-main/secrets/memory-store';
import type { SettingsStore } from '../../src-main/settings/settings-store';
import type { EventChannel, EventChannels, IpcResult, SyncRunState } from '../../src-shared/ipc-contract';
import { until } from './until';

export interface RecordingApp {
  services: MainServices;
  results: unknown[];
  emitted: Array<{ channel: EventChannel; payload: unknown }>;
  notifications: Array<{ title: string; body: string }>;
  call(channel: keyof MainServices['handlers'], arg?: unknown): Promise<IpcResult<unknown>>;
  /** Starts a run for the collection and waits for its final state. */
  runToEnd(channel: 'sync:start' | 'sync:repair', arg: { collectionId: number; full?: boolean }): Promise<SyncRunState>;
}

export function recordingApp(settings: SettingsStore): RecordingApp {
  const results: unknown[] = [];
  const emitted: RecordingApp['emitted'] = [];
  const notifications: RecordingApp['notifications'] = [];
  const services = createMainServices({
    secrets: createMemoryStore(),
    settings,
    pickFolder: async () => null,
    showItemInFolder: () => undefined,
    openExternal: async () => undefined,
    notify: (title, body) => void notifications.push({ title, body }),
    // A copy, as the bridge would serialise it.
    emit: <C extends EventChannel>(channel: C, payload: EventChannels[C]) => void emitted.push({ channel, payload: JSON.parse(JSON.stringify(payload)) }),
    batchIntervalMs: 50,
  });
  const call = async (channel: keyof MainServices['handlers'], arg?: unknown): Promise<IpcResult<unknown>> => {
    const r = (await services.handlers[channel](arg)) as IpcResult<unknown>;
    results.push(JSON.parse(JSON.stringify(r)));
    return r;
  };
  const finished = () => emitted.filter((e) => e.channel === 'sync:state' && !(e.payload as SyncRunState).running).length;
  const runToEnd: RecordingApp['runToEnd'] = async (channel, arg) => {
    const before = finished();
    const started = await call(channel, arg);
    if (!started.ok) throw new Error(`${channel}: ${started.error.message}`);
    await until(`${channel} to end`, () => finished() > before);
    const state = await call('sync:state', { collectionId: arg.collectionId });
    if (!state.ok) throw new Error(state.error.message);
    return state.value as SyncRunState;
  };
  return { services, results, emitted, notifications, call, runToEnd };
}

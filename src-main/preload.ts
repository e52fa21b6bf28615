// The sandboxed preload: exposes `window.api` (RendererApi) for exactly the channels listed
// in src-shared/ipc-channels.ts and nothing else — no ipcRenderer, no Electron event objects, no Node.
// Bundled as CommonJS because sandboxed preloads cannot load ES modules.
import { contextBridge, ipcRenderer } from 'electron';
import type { EventChannel, EventChannels, InvokeChannel, InvokeChannels, IpcResult, RendererApi } from '../src-shared/ipc-contract';
import { isEventChannel, isInvokeChannel } from '../src-shared/ipc-channels';

const api: RendererApi = {
  invoke<C extends InvokeChannel>(channel: C, arg: InvokeChannels[C]['arg']): Promise<IpcResult<InvokeChannels[C]['result']>> {
    if (!isInvokeChannel(channel)) {
      return Promise.resolve({ ok: false, error: { kind: 'invalid_argument', message: `Unknown channel "${String(channel)}".` } });
    }
    return ipcRenderer.invoke(channel, arg) as Promise<IpcResult<InvokeChannels[C]['result']>>;
  },
  on<C extends EventChannel>(channel: C, listener: (payload: EventChannels[C]) => void): () => void {
    if (!isEventChannel(channel)) throw new Error(`Unknown event channel "${String(channel)}".`);
    // The Electron event (with its sender) never reaches the page: only the payload does.
    const wrapped = (_event: unknown, payload: EventChannels[C]) => listener(payload);
    ipcRenderer.on(channel, wrapped);
    return () => {
      ipcRenderer.removeListener(channel, wrapped);
    };
  },
};

contextBridge.exposeInMainWorld('api', api);

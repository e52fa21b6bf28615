// Browser-side stand-in for the Electron preload: defines `window.api` (RendererApi) over the
// bridge WebSocket, so the unmodified renderer runs in a plain browser against the real
// main-process handlers. Served as a classic script by bridge-server.ts (bundled by esbuild).
import type { EventChannel, EventChannels, InvokeChannel, InvokeChannels, IpcResult, RendererApi } from '../../src-shared/ipc-contract';
import { BRIDGE_PATH, type BridgePush, type BridgeRequest, type BridgeResponse } from './bridge-protocol';

type Listener = (payload: unknown) => void;

function createBridgeApi(socketUrl: string): RendererApi {
  const socket = new WebSocket(socketUrl);
  const pending = new Map<number, (result: IpcResult<unknown>) => void>();
  const listeners = new Map<string, Set<Listener>>();
  const opened = new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error('The test bridge WebSocket failed to open.')), { once: true });
  });
  let nextId = 1;

  socket.addEventListener('message', (message) => {
    const data = JSON.parse(String(message.data)) as Partial<BridgeResponse & BridgePush>;
    if (typeof data.id === 'number' && data.result) {
      pending.get(data.id)?.(data.result);
      pending.delete(data.id);
    } else if (typeof data.event === 'string') {
      for (const listener of listeners.get(data.event) ?? []) listener(data.payload);
    }
  });
  socket.addEventListener('close', () => {
    for (const resolve of pending.values()) resolve({ ok: false, error: { kind: 'internal', message: 'The test bridge connection closed.' } });
    pending.clear();
  });

  return {
    async invoke<C extends InvokeChannel>(channel: C, arg: InvokeChannels[C]['arg']): Promise<IpcResult<InvokeChannels[C]['result']>> {
      try {
        await opened;
      } catch (e) {
        return { ok: false, error: { kind: 'internal', message: (e as Error).message } };
      }
      const id = nextId++;
      const request: BridgeRequest = { id, channel, arg };
      return new Promise((resolve) => {
        pending.set(id, resolve as (result: IpcResult<unknown>) => void);
        socket.send(JSON.stringify(request));
      });
    },
    on<C extends EventChannel>(channel: C, listener: (payload: EventChannels[C]) => void): () => void {
      let set = listeners.get(channel);
      if (!set) listeners.set(channel, (set = new Set()));
      const wrapped = listener as Listener;
      set.add(wrapped);
      return () => {
        set.delete(wrapped);
      };
    },
  };
}

const target = globalThis as unknown as { location: { host: string; protocol: string }; api?: RendererApi };
target.api = createBridgeApi(`${target.location.protocol === 'https:' ? 'wss' : 'ws'}://${target.location.host}${BRIDGE_PATH}`);

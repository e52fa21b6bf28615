// Browser-side stand-in for the Electron preload: defines `window.api` (RendererApi) over the
// bridge WebSocket, so the unmodified renderer runs in a plain browser against the real
// main-process handlers. Served as a classic script by bridge-server.ts (bundled by esbuild).
import type { EventChannel, EventChannels, InvokeChannel, InvokeChannels, IpcResult, RendererApi } from '../../src-shared/ipc-contract';
import { BRIDGE_PATH, BRIDGE_TOKEN_PARAM, type BridgePush, type BridgeRequest, type BridgeResponse } from './protocol';

type Listener = (payload: unknown) => void;

function createBridgeApi(socketUrl: string): RendererApi {
  const socket = new WebSocket(socketUrl);
  const pending = new Map<number, (result: IpcResult<unknown>) => void>();
  const listeners = new Map<string, Set<Listener>>();
  const opened = new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error('The bridge WebSocket failed to open (was the page opened from the URL the bridge printed?).')), { once: true });
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
    for (const resolve of pending.values()) resolve({ ok: false, error: { kind: 'internal', message: 'The bridge connection closed.' } });
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

/**
 * The token arrives in the fragment of the URL the bridge printed (#bridge-token=...). It is
 * kept in this tab's sessionStorage (same origin only) so a reload still works, and removed
 * from the address bar.
 */
function takeToken(): string {
  const fromUrl = new URLSearchParams(location.hash.slice(1)).get(BRIDGE_TOKEN_PARAM);
  if (fromUrl) {
    sessionStorage.setItem(BRIDGE_TOKEN_PARAM, fromUrl);
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(BRIDGE_TOKEN_PARAM) ?? '';
}

const target = globalThis as unknown as { api?: RendererApi };
const socketUrl = new URL(BRIDGE_PATH, location.href);
socketUrl.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
socketUrl.searchParams.set(BRIDGE_TOKEN_PARAM, takeToken());
target.api = createBridgeApi(socketUrl.href);

// The renderer's only way out: the typed bridge the preload exposes as `window.api`.
// Component tests install an in-memory fake with setRendererApi; nothing else is swapped.
import type { EventChannel, EventChannels, InvokeChannel, InvokeChannels, IpcResult, RendererApi } from '../src-shared/ipc-contract';

let installed: RendererApi | null = null;

export function setRendererApi(api: RendererApi | null): void {
  installed = api;
}

function bridge(): RendererApi {
  // Not declared on Window globally: the preload may declare it too, and two declarations must agree.
  const api = installed ?? (window as unknown as { api?: RendererApi }).api;
  if (!api) throw new Error('The app bridge (window.api) is missing: the preload script did not run.');
  return api;
}

/** Failures are values: a broken bridge becomes an `internal` error instead of an exception in a click handler. */
export async function invoke<C extends InvokeChannel>(channel: C, arg: InvokeChannels[C]['arg']): Promise<IpcResult<InvokeChannels[C]['result']>> {
  try {
    return await bridge().invoke(channel, arg);
  } catch (e) {
    return { ok: false, error: { kind: 'internal', message: `The app bridge failed on ${channel}: ${e instanceof Error ? e.message : String(e)}` } };
  }
}

export function subscribe<C extends EventChannel>(channel: C, listener: (payload: EventChannels[C]) => void): () => void {
  return bridge().on(channel, listener);
}

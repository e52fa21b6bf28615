// A small in-memory RendererApi for component tests only: rendering is what these test.
// Everything real (handlers, engine, disk, service) is exercised by the e2e tests.
import type { EventChannel, EventChannels, InvokeChannel, InvokeChannels, IpcResult, RendererApi } from '../../src-shared/ipc-contract';

type Handler<C extends InvokeChannel> = (arg: InvokeChannels[C]['arg']) => IpcResult<InvokeChannels[C]['result']> | Promise<IpcResult<InvokeChannels[C]['result']>>;

export class FakeRendererApi implements RendererApi {
  readonly calls: Array<{ channel: InvokeChannel; arg: unknown }> = [];
  private handlers = new Map<InvokeChannel, Handler<InvokeChannel>>();
  private listeners = new Map<EventChannel, Set<(payload: never) => void>>();

  handle<C extends InvokeChannel>(channel: C, handler: Handler<C>): this {
    this.handlers.set(channel, handler as unknown as Handler<InvokeChannel>);
    return this;
  }

  async invoke<C extends InvokeChannel>(channel: C, arg: InvokeChannels[C]['arg']): Promise<IpcResult<InvokeChannels[C]['result']>> {
    this.calls.push({ channel, arg });
    const handler = this.handlers.get(channel);
    if (!handler) return { ok: false, error: { kind: 'internal', message: `fake: no handler for ${channel}` } };
    return (await handler(arg as never)) as IpcResult<InvokeChannels[C]['result']>;
  }

  on<C extends EventChannel>(channel: C, listener: (payload: EventChannels[C]) => void): () => void {
    const set = this.listeners.get(channel) ?? new Set();
    set.add(listener as (payload: never) => void);
    this.listeners.set(channel, set);
    return () => set.delete(listener as (payload: never) => void);
  }

  emit<C extends EventChannel>(channel: C, payload: EventChannels[C]): void {
    for (const listener of this.listeners.get(channel) ?? []) (listener as (p: EventChannels[C]) => void)(payload);
  }
}

export function ok<T>(value: T): IpcResult<T> {
  return { ok: true, value };
}

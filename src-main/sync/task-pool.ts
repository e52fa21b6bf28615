// A bounded work queue: tasks run while the costs of the running ones fit in `capacity` (a task
// costs 1 unless pushed with another cost; one runs even if it costs more), and `push` waits
// while `maxQueued` tasks are waiting, so the producer (the page walk) never runs far ahead and
// memory stays flat. Tasks start in the order pushed. Every task passes the pause gate first.
// A task may give its place back before it ends (release): a download that only waits for its
// commit to the local disk lets the next request go out meanwhile.

/**
 * What the queue awaits before starting each task, and what every received body chunk and every
 * new file request awaits (accounting.ts): a closed gate pauses the whole sync, active
 * transfers included (their sockets stay paused by the same flow control as the rate limit).
 */
export interface PauseGate {
  /** Resolves when work may start; settles at once when `signal` is aborted. Undefined when open. */
  whenOpen(signal: AbortSignal): Promise<void> | undefined;
  /** True while closed (shown in progress events); absent means never paused. */
  readonly paused?: boolean;
}

/** A gate that never closes. */
export const openGate: PauseGate = { whenOpen: () => undefined };

/** A gate the caller opens and closes: runSync(options, onEvent, { gate }) then gate.pause() / gate.resume(). */
export interface ControllablePauseGate extends PauseGate {
  readonly paused: boolean;
  /** Holds new tasks, new requests and every active transfer at its next chunk; partial files are kept. */
  pause(): void;
  /** Lets everything held go on where it stopped (no re-walk, transfers read on from their sockets). */
  resume(): void;
  /** Calls `listener` after each change (pause of an open gate, resume of a closed one); answers the unsubscribe. */
  onChange(listener: (paused: boolean) => void): () => void;
}

export function createPauseGate(): ControllablePauseGate {
  let opened: Promise<void> | undefined;
  let open: (() => void) | undefined;
  const listeners = new Set<(paused: boolean) => void>();
  const changed = (paused: boolean) => {
    for (const listener of [...listeners]) listener(paused);
  };
  return {
    get paused() {
      return opened !== undefined;
    },
    pause() {
      if (opened) return;
      opened = new Promise<void>((r) => (open = r));
      changed(true);
    },
    resume() {
      const release = open;
      opened = undefined;
      open = undefined;
      release?.();
      if (release) changed(false);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    whenOpen(signal) {
      const current = opened;
      if (!current || signal.aborted) return undefined;
      return new Promise<void>((resolve) => {
        const onAbort = () => resolve();
        signal.addEventListener('abort', onAbort, { once: true });
        void current.then(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    },
  };
}

/**
 * A queued task. `release()` gives its place in the pool back before it ends (a download whose
 * bytes are verified and only wait for their commit to the local disk): the next task starts
 * while this one finishes; idle() still waits for it to end.
 */
export type PoolTask = (release: () => void) => Promise<void>;

interface Queued {
  task: PoolTask;
  cost: number;
}

export class TaskPool {
  /** Tasks that have not ended (idle() waits for them). */
  private running = 0;
  /** Tasks holding their place (not released), and what they cost. */
  private holding = 0;
  private holdingCost = 0;
  private readonly queue: Queued[] = [];
  private readonly spaceWaiters: Array<() => void> = [];
  private readonly idleWaiters: Array<() => void> = [];

  constructor(
    private readonly capacity: number,
    private readonly maxQueued: number,
    private readonly gate: PauseGate = openGate,
    private readonly signal: AbortSignal = new AbortController().signal,
  ) {}

  async push(task: PoolTask, cost = 1): Promise<void> {
    while (this.queue.length >= this.maxQueued) {
      await new Promise<void>((r) => this.spaceWaiters.push(r));
    }
    this.queue.push({ task, cost });
    this.pump();
  }

  /** Resolves once nothing is queued or running (released tasks included). Tasks must not reject (they report instead). */
  async idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return;
    await new Promise<void>((r) => this.idleWaiters.push(r));
  }

  private async start(task: PoolTask, release: () => void): Promise<void> {
    const closed = this.gate.whenOpen(this.signal);
    if (closed) await closed;
    await task(release);
  }

  private pump(): void {
    while (this.queue.length > 0 && (this.holding === 0 || this.holdingCost + this.queue[0]!.cost <= this.capacity)) {
      const { task, cost } = this.queue.shift()!;
      this.spaceWaiters.shift()?.();
      this.running++;
      this.holding++;
      this.holdingCost += cost;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.holding--;
        this.holdingCost -= cost;
        this.pump();
      };
      void this.start(task, release)
        .catch(() => undefined)
        .finally(() => {
          this.running--;
          release();
          if (this.running === 0 && this.queue.length === 0) {
            for (const w of this.idleWaiters.splice(0)) w();
          }
        });
    }
  }
}

// A bounded work queue: at most `concurrency` tasks run, and `push` waits while `maxQueued`
// tasks are waiting, so the producer (the page walk) never runs far ahead and memory stays flat.
export class TaskPool {
  private running = 0;
  private readonly queue: Array<() => Promise<void>> = [];
  private readonly spaceWaiters: Array<() => void> = [];
  private readonly idleWaiters: Array<() => void> = [];

  constructor(private readonly concurrency: number, private readonly maxQueued: number) {}

  async push(task: () => Promise<void>): Promise<void> {
    while (this.queue.length >= this.maxQueued) {
      await new Promise<void>((r) => this.spaceWaiters.push(r));
    }
    this.queue.push(task);
    this.pump();
  }

  /** Resolves once nothing is queued or running. Tasks must not reject (they report instead). */
  async idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return;
    await new Promise<void>((r) => this.idleWaiters.push(r));
  }

  private pump(): void {
    while (this.running < this.concurrency && this.queue.length > 0) {
      const task = this.queue.shift()!;
      this.spaceWaiters.shift()?.();
      this.running++;
      void task()
        .catch(() => undefined)
        .finally(() => {
          this.running--;
          this.pump();
          if (this.running === 0 && this.queue.length === 0) {
            for (const w of this.idleWaiters.splice(0)) w();
          }
        });
    }
  }
}

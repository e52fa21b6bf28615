// The media check's own work (media-stage.ts): files it reads from the destination because it did
// not see their bytes stream past (up to date or adopted with no result of their version, owed by
// an earlier sync with the check off; or every file, with ffprobe, when the deep check is asked).
// A few at a time, beside the downloads; memory flat however many are owed (the producer waits for
// room). What it has done and still has to do is the stage's share of the progress bar.

/** Checks running at once: each reads a file's headers (a few round trips to the disk or the bucket), or runs ffprobe. */
const AT_ONCE = 2;
/** Checks queued ahead of the running ones: the producer (a pass over the records) waits beyond this. */
const QUEUED_MAX = 64;

interface Task {
  run(): Promise<void>;
  /** Lets go of what the task holds when a cancelled sync drops it unstarted. */
  drop(): void;
}

export class CheckQueue {
  private readonly queue: Task[] = [];
  private running = 0;
  private idleWaiters: Array<() => void> = [];
  private roomWaiters: Array<() => void> = [];
  /** Files checked, and files known to be coming (queued, running, or announced by `expect`). */
  done = 0;
  total = 0;

  constructor(private readonly signal: AbortSignal) {}

  /** Files that will be pushed later (a pass over the records counts them first): counted in `total` now, so the bar knows. */
  expect(files: number): void {
    this.total += files;
  }

  /** Queues a check; `announced`: it was counted by expect() already. */
  push(task: Task, announced = false): void {
    if (!announced) this.total++;
    if (this.signal.aborted) {
      task.drop();
      return;
    }
    this.queue.push(task);
    this.pump();
  }

  /** Resolves once there is room for more (a producer of many checks waits here). */
  async room(): Promise<void> {
    while (this.queue.length >= QUEUED_MAX && !this.signal.aborted) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
  }

  /** Announced checks that will not come after all (the producer stopped): taken out of `total`. */
  unexpect(files: number): void {
    this.total -= files;
  }

  private pump(): void {
    while (this.running < AT_ONCE && this.queue.length > 0) {
      const task = this.queue.shift()!;
      this.running++;
      void task
        .run()
        .catch(() => undefined)
        .finally(() => {
          this.running--;
          this.done++;
          this.pump();
        });
    }
    if (this.queue.length < QUEUED_MAX) for (const w of this.roomWaiters.splice(0)) w();
    if (this.running === 0 && this.queue.length === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Resolves once every check queued so far has ended; a cancelled sync drops those not started. */
  idle(): Promise<void> {
    if (this.signal.aborted) {
      for (const task of this.queue.splice(0)) task.drop();
      for (const w of this.roomWaiters.splice(0)) w();
    }
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}

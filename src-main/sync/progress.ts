// Aggregate progress: transfers bump plain counters per chunk; a timer turns them into at most
// a few `progress` events a second, with a rate smoothed over the last few seconds.
import type { SyncEvent } from './events';

export interface ActiveTransfer {
  fileId: number;
  path: string;
  sizeBytes: number;
  bytesDone: number;
}

export class ProgressTracker {
  bytesDone = 0;
  bytesTotal = 0;
  filesDone = 0;
  filesTotal = 0;
  readonly active = new Set<ActiveTransfer>();
  private timer: NodeJS.Timeout | undefined;
  private samples: Array<{ t: number; bytes: number }> = [];
  private lastEmitted = '';
  private lastEmittedAt = 0;

  /**
   * `heartbeatMs`: while nothing moves no event is sent, except one this often, so a stalled
   * transfer shows its rate falling to zero instead of the last rate seen.
   */
  constructor(
    private readonly emit: (e: SyncEvent) => void,
    private readonly intervalMs = 250,
    private readonly heartbeatMs = 2000,
  ) {}

  start(): void {
    // The first sample is the start itself, so the very first event already has a rate and an ETA.
    this.samples = [{ t: Date.now(), bytes: this.bytesDone }];
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.tick();
  }

  private tick(): void {
    const now = Date.now();
    this.samples.push({ t: now, bytes: this.bytesDone });
    while (this.samples.length > 2 && now - this.samples[0]!.t > 5000) this.samples.shift();
    const first = this.samples[0]!;
    const dt = (now - first.t) / 1000;
    const bytesPerSecond = dt > 0 ? Math.max(0, (this.bytesDone - first.bytes) / dt) : 0;
    const remaining = Math.max(0, this.bytesTotal - this.bytesDone);
    const etaSeconds = bytesPerSecond > 0 ? Math.round(remaining / bytesPerSecond) : remaining === 0 ? 0 : null;
    const key = `${this.bytesDone}/${this.bytesTotal}/${this.filesDone}/${this.filesTotal}/${this.active.size}`;
    if (key === this.lastEmitted && now - this.lastEmittedAt < this.heartbeatMs) return;
    this.lastEmitted = key;
    this.lastEmittedAt = now;
    this.emit({
      type: 'progress',
      bytesDone: this.bytesDone,
      bytesTotal: this.bytesTotal,
      filesDone: this.filesDone,
      filesTotal: this.filesTotal,
      bytesPerSecond: Math.round(bytesPerSecond),
      etaSeconds,
      active: [...this.active].map((a) => ({ fileId: a.fileId, path: a.path, bytesDone: a.bytesDone, sizeBytes: a.sizeBytes })),
    });
  }
}

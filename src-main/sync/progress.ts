// Aggregate progress: transfers bump the counters of the run's Accounting per chunk; a timer turns
// them into at most a few `progress` events a second, with a rate smoothed over the last few seconds.
import type { SyncEvent } from '../../src-shared/sync-events';
import type { Accounting } from './accounting';
import { systemClock, type Clock } from './clock';

export type { ActiveTransfer } from './accounting';

export class ProgressTracker {
  private timer: NodeJS.Timeout | undefined;
  private samples: Array<{ t: number; bytes: number }> = [];
  private lastEmitted = '';
  private lastEmittedAt = 0;

  /**
   * `heartbeatMs`: while nothing moves no event is sent, except one this often, so a stalled
   * transfer shows its rate falling to zero instead of the last rate seen. The timer runs on
   * real time; rates and the heartbeat are measured on `clock`.
   */
  constructor(
    private readonly counts: Accounting,
    private readonly emit: (e: SyncEvent) => void,
    private readonly intervalMs = 250,
    private readonly heartbeatMs = 2000,
    private readonly clock: Clock = systemClock,
  ) {}

  start(): void {
    // The first sample is the start itself, so the very first event already has a rate and an ETA.
    this.samples = [{ t: this.clock.now(), bytes: this.counts.bytesDone }];
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.tick();
  }

  private tick(): void {
    const c = this.counts;
    const now = this.clock.now();
    this.samples.push({ t: now, bytes: c.bytesDone });
    while (this.samples.length > 2 && now - this.samples[0]!.t > 5000) this.samples.shift();
    const first = this.samples[0]!;
    const dt = (now - first.t) / 1000;
    const bytesPerSecond = dt > 0 ? Math.max(0, (c.bytesDone - first.bytes) / dt) : 0;
    const remaining = Math.max(0, c.bytesTotal - c.bytesDone);
    const etaSeconds = bytesPerSecond > 0 ? Math.round(remaining / bytesPerSecond) : remaining === 0 ? 0 : null;
    const key = `${c.bytesDone}/${c.bytesTotal}/${c.filesDone}/${c.filesTotal}/${c.active.size}`;
    if (key === this.lastEmitted && now - this.lastEmittedAt < this.heartbeatMs) return;
    this.lastEmitted = key;
    this.lastEmittedAt = now;
    this.emit({
      type: 'progress',
      bytesDone: c.bytesDone,
      bytesTotal: c.bytesTotal,
      filesDone: c.filesDone,
      filesTotal: c.filesTotal,
      bytesPerSecond: Math.round(bytesPerSecond),
      etaSeconds,
      active: [...c.active].map((a) => ({ fileId: a.fileId, path: a.path, bytesDone: a.bytesDone, sizeBytes: a.sizeBytes })),
    });
  }
}

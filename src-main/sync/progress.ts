// Aggregate progress: transfers bump the counters of the run's Accounting per chunk; a timer turns
// them into at most a few `progress` events a second. This is the one place where the figures
// users see are computed (the app and the CLI show them as they come):
// - `fraction`: sets done/total while sets are still being listed (file sizes are not all known
//   yet; a set in flight counts for the share of its bytes done); once every set is listed, the rest of the bar is shared out by bytes (by files when no
//   bytes remain), starting from where the sets left it, so it never jumps back;
// - the rate: received bytes over the last 5 s (bytes a resume found on disk are not received), 0 while paused;
// - the ETA: null until at least 2 s of transfer and 1 % done;
// - every count, total and the fraction are held at their highest value so far (monotonic).
import type { ProgressEvent, SyncEvent } from '../../src-shared/sync-events';
import type { Accounting, ActiveTransfer } from './accounting';
import { systemClock, type Clock } from './clock';

export type { ActiveTransfer } from './accounting';

const RATE_WINDOW_MS = 5000;
const ETA_MIN_TRANSFER_MS = 2000;
const ETA_MIN_FRACTION = 0.01;

interface Sample {
  t: number;
  received: number;
  fraction: number;
}

export class ProgressTracker {
  private timer: NodeJS.Timeout | undefined;
  private samples: Sample[] = [];
  private fileSamples = new Map<ActiveTransfer, Array<{ t: number; received: number }>>();
  private lastEmitted = '';
  private lastEmittedAt = 0;
  /** When the first byte was received (the ETA waits for a few seconds of transfer). */
  private transferStartedAt: number | undefined;
  /** Where the sets-driven fraction stood when listing ended, and the bytes/files done then. */
  private listedAt: { fraction: number; bytesDone: number; filesDone: number } | undefined;
  /** The highest values sent so far: nothing shown ever goes back. */
  private high = { setsDone: 0, setsTotal: 0, bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: 0, fraction: 0 };

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

  /** Starts the timer and sends the first event at once (it already carries setsTotal). */
  start(): void {
    this.samples = [{ t: this.clock.now(), received: this.counts.bytesDownloaded, fraction: 0 }];
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
    this.tick(true);
  }

  /** Sends an event now (e.g. on a change of phase). */
  update(): void {
    if (this.timer) this.tick(true);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.tick(true);
  }

  private fraction(): number {
    const c = this.counts;
    // Sets in flight count for the share of their bytes already done, so large files move the bar before their set ends.
    const inFlight = Math.max(0, c.setsUnchanged + c.sets - c.setsDone);
    const inFlightBytes = c.bytesTotal - c.bytesOfEndedSets;
    const share = inFlightBytes > 0 ? Math.min(1, Math.max(0, (c.bytesDone - c.bytesOfEndedSets) / inFlightBytes)) : 0;
    const bySets = c.setsTotal > 0 ? Math.min(1, (c.setsDone + inFlight * share) / c.setsTotal) : 0;
    if (!c.listed) return bySets;
    this.listedAt ??= { fraction: Math.max(bySets, this.high.fraction), bytesDone: c.bytesDone, filesDone: c.filesDone };
    const from = this.listedAt;
    const bytesLeft = c.bytesTotal - from.bytesDone;
    const filesLeft = c.filesTotal - from.filesDone;
    const after =
      bytesLeft > 0 ? (c.bytesDone - from.bytesDone) / bytesLeft : filesLeft > 0 ? (c.filesDone - from.filesDone) / filesLeft : c.setsTotal > 0 ? c.setsDone / c.setsTotal : 1;
    return from.fraction + (1 - from.fraction) * Math.min(1, Math.max(0, after));
  }

  private tick(force = false): void {
    const c = this.counts;
    const now = this.clock.now();
    const h = this.high;
    const raise = (k: keyof typeof h, v: number) => (h[k] = Math.max(h[k], v));
    raise('setsDone', c.setsDone);
    raise('setsTotal', Math.max(c.setsTotal, h.setsDone));
    raise('bytesDone', c.bytesDone);
    raise('bytesTotal', Math.max(c.bytesTotal, h.bytesDone));
    raise('filesDone', c.filesDone);
    raise('filesTotal', Math.max(c.filesTotal, h.filesDone));
    raise('fraction', Math.min(1, this.fraction()));

    if (this.transferStartedAt === undefined && c.bytesDownloaded > 0) this.transferStartedAt = now;
    this.samples.push({ t: now, received: c.bytesDownloaded, fraction: h.fraction });
    while (this.samples.length > 2 && now - this.samples[0]!.t > RATE_WINDOW_MS) this.samples.shift();
    const first = this.samples[0]!;
    // At least a second: a window of a few milliseconds would turn one burst into a spike.
    const dt = Math.max(1, (now - first.t) / 1000);
    // Paused: nothing is received, whatever the window still remembers.
    const bytesPerSecond = c.paused ? 0 : Math.max(0, (c.bytesDownloaded - first.received) / dt);

    const retry = c.walkRetry && c.walkRetry.until > now ? c.walkRetry : undefined;
    const phase = retry ? 'retrying' : c.phase === 'downloading' && c.active.size > 0 && [...c.active].every((a) => a.checking) ? 'checking' : c.phase;
    const key = `${h.setsDone}/${h.setsTotal}/${h.bytesDone}/${h.bytesTotal}/${h.filesDone}/${h.filesTotal}/${c.active.size}/${phase}/${c.paused}/${retry ? Math.ceil((retry.until - now) / 1000) : ''}`;
    if (!force && key === this.lastEmitted && now - this.lastEmittedAt < this.heartbeatMs) return;
    this.lastEmitted = key;
    this.lastEmittedAt = now;

    const event: ProgressEvent = {
      type: 'progress',
      phase,
      paused: c.paused,
      setsDone: h.setsDone,
      setsTotal: h.setsTotal,
      bytesDone: h.bytesDone,
      bytesTotal: h.bytesTotal,
      filesDone: h.filesDone,
      filesTotal: h.filesTotal,
      fraction: h.fraction,
      bytesPerSecond: Math.round(bytesPerSecond),
      etaSeconds: null,
      bytesRedownloaded: c.bytesRedownloaded,
      ...(retry ? { retry: { attempt: retry.attempt, of: retry.of, inSeconds: Math.ceil((retry.until - now) / 1000) } } : {}),
      active: [...c.active].map((a) => ({ fileId: a.fileId, path: a.path, bytesDone: a.bytesDone, sizeBytes: a.sizeBytes, bytesPerSecond: c.paused ? 0 : this.fileRate(a, now) })),
    };
    event.etaSeconds = this.eta(now, bytesPerSecond, first, event.active);
    for (const a of this.fileSamples.keys()) if (!c.active.has(a)) this.fileSamples.delete(a);
    this.emit(event);
  }

  private eta(now: number, bytesPerSecond: number, first: Sample, active: ProgressEvent['active']): number | null {
    const c = this.counts;
    const h = this.high;
    if (h.fraction >= 1) return 0;
    if (c.paused || this.transferStartedAt === undefined || now - this.transferStartedAt < ETA_MIN_TRANSFER_MS || h.fraction < ETA_MIN_FRACTION) return null;
    if (c.listed && bytesPerSecond > 0 && c.bytesTotal > c.bytesDone) {
      // The sync cannot end before its slowest transfer at that file's own rate: with a few slow
      // files left, the total rate still remembers the fast ones that have finished.
      const slowest = Math.max(0, ...active.filter((a) => a.bytesPerSecond > 0).map((a) => (a.sizeBytes - a.bytesDone) / a.bytesPerSecond));
      return Math.round(Math.max((c.bytesTotal - c.bytesDone) / bytesPerSecond, slowest));
    }
    // While listing (or with no bytes left): how fast the fraction itself moved over the window.
    const perSecond = (h.fraction - first.fraction) / ((now - first.t) / 1000);
    return perSecond > 0 ? Math.round((1 - h.fraction) / perSecond) : null;
  }

  private fileRate(a: ActiveTransfer, now: number): number {
    let s = this.fileSamples.get(a);
    if (!s) this.fileSamples.set(a, (s = []));
    s.push({ t: now, received: a.received });
    while (s.length > 2 && now - s[0]!.t > RATE_WINDOW_MS) s.shift();
    const dt = Math.max(1, (now - s[0]!.t) / 1000);
    return Math.round(Math.max(0, (a.received - s[0]!.received) / dt));
  }
}

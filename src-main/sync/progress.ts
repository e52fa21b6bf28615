// Aggregate progress: transfers bump the counters of the run's Accounting per chunk; a timer turns
// them into at most a few `progress` events a second. This is the one place where the figures
// users see are computed (the app and the CLI show them as they come):
// - the totals: while sets are being listed, the bytes and files listed so far plus the sets
//   still to list at the average of those listed (an estimate, said so by `estimated`); exact
//   once every set is listed;
// - `fraction`: bytes done of that best known total while listing (the share of the sets to
//   walk that are done while no byte to download is known); once every set is listed, the rest
//   of the bar is shared out by bytes (by files when no bytes remain), starting from where the
//   listing left it, so it never jumps back;
// - the rates: received bytes over the last 5 s of *unpaused* time (bytes a resume found on
//   disk are not received), 0 while paused: a pause drops out of the window instead of being
//   averaged in; each transfer's own rate is measured from its first byte;
// - the ETA: null until at least 2 s of (unpaused) transfer and 1 % done; then the bytes left of
//   the best known total at that rate;
// - the stages' own work (stages/: files the media check reads itself, not as they stream past) has
//   its share of the bar by its count of files against the files to download, and the ETA is the
//   later of the transfers' and the stages' at their own rates, so the bar reaches its end only when
//   nothing is left but writing the dataset files;
// - every count, total and the fraction are held at their highest value so far (monotonic).
import type { ProgressEvent, SyncEvent, SyncPhase } from '../../src-shared/sync-events';
import type { Accounting, ActiveTransfer } from './accounting';
import { systemClock, type Clock } from './clock';

export type { ActiveTransfer } from './accounting';

const RATE_WINDOW_MS = 5000;
/** The total rate's shortest window: a window of a few milliseconds would turn one burst into a spike. */
const MIN_RATE_WINDOW_MS = 1000;
/** A transfer's: shorter, as a small file is in flight for a fraction of a second. */
const MIN_FILE_RATE_WINDOW_MS = 250;
const ETA_MIN_TRANSFER_MS = 2000;
const ETA_MIN_FRACTION = 0.01;

/** `t` is unpaused time (ProgressTracker.unpausedNow). */
interface Sample {
  t: number;
  received: number;
  fraction: number;
  /** The stages' files done (their rate is the stages' part of the ETA). */
  stageDone: number;
}

/** The best known totals (ProgressEvent.bytesTotalEstimate and filesTotalEstimate). */
interface Totals {
  bytes: number;
  files: number;
}

export class ProgressTracker {
  private timer: NodeJS.Timeout | undefined;
  private samples: Sample[] = [];
  private fileSamples = new Map<ActiveTransfer, Array<{ t: number; received: number }>>();
  /** Time paused before the current pause (ms), the start of the current one, and the end of the last one (clock ms). */
  private pausedMs = 0;
  private pausedSince: number | undefined;
  private resumedAt = -Infinity;
  private lastEmitted = '';
  private lastEmittedAt = 0;
  /** When the first byte was received, in unpaused time (the ETA waits for a few seconds of transfer). */
  private transferStartedAt: number | undefined;
  /** Where the fraction stood when the listing ended, and the bytes/files done then. */
  private listedAt: { fraction: number; bytesDone: number; filesDone: number } | undefined;
  /** The highest values sent so far: nothing shown ever goes back. */
  private high = { setsDone: 0, setsTotal: 0, bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: 0, fraction: 0 };
  /** The transfers' own share, held likewise (the floor where the bar goes on from once every set is listed). */
  private transfersHigh = 0;

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
    this.samples = [{ t: this.unpausedNow(this.clock.now()), received: this.counts.bytesDownloaded, fraction: 0, stageDone: this.counts.stageWork().done }];
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

  /**
   * The clock less the time paused so far: rate windows and the ETA's wait are measured on it,
   * so a pause neither lowers the rate after Resume nor counts as seconds of transfer. A pause is
   * seen by the tick that first finds the gate closed (at most one interval late).
   */
  private unpausedNow(now: number): number {
    if (this.counts.paused) this.pausedSince ??= now;
    else if (this.pausedSince !== undefined) {
      this.pausedMs += now - this.pausedSince;
      this.pausedSince = undefined;
      this.resumedAt = now;
    }
    return this.unpausedAt(now);
  }

  /** Unpaused time at clock time `t`, for any `t` since the last Resume. */
  private unpausedAt(t: number): number {
    return Math.min(t, this.pausedSince ?? Infinity) - this.pausedMs;
  }

  /**
   * The best known totals: exact once every set is listed; before, what is listed plus the sets
   * still to list at the average of the sets listed so far (sets an incremental sync need not
   * walk are not to list). Undefined while no set is listed yet.
   */
  private totals(): Totals | undefined {
    const c = this.counts;
    const toList = c.listed ? 0 : Math.max(0, c.setsTotal - c.setsUnchanged - c.sets);
    if (toList === 0 && c.setsQueuing === 0) return { bytes: c.bytesTotal, files: c.filesTotal };
    // The average comes from sets whose files are all queued; a set still queuing (the transfer
    // pool pushes back) counts as a set to come, so its few queued files cannot lower the estimate.
    const settled = c.sets - c.setsQueuing;
    if (c.sets === 0) return undefined;
    // Only sets still queuing: the old extrapolation from what they queued so far.
    if (settled <= 0) return { bytes: Math.round(c.bytesTotal + (toList * c.bytesTotal) / c.sets), files: Math.round(c.filesTotal + (toList * c.filesTotal) / c.sets) };
    const rest = toList + c.setsQueuing;
    const bytes = c.bytesTotal - c.bytesQueuing + (rest * (c.bytesTotal - c.bytesQueuing)) / settled;
    const files = c.filesTotal - c.filesQueuing + (rest * (c.filesTotal - c.filesQueuing)) / settled;
    return { bytes: Math.round(Math.max(bytes, c.bytesTotal)), files: Math.round(Math.max(files, c.filesTotal)) };
  }

  private fraction(totals: Totals | undefined): number {
    const c = this.counts;
    if (!c.listed) {
      if (totals && totals.bytes > 0) return c.bytesDone / totals.bytes;
      // No byte to download known yet (nothing listed, or all up to date so far): the share of the
      // sets to walk that are done (sets an incremental sync need not walk are no work done).
      const toWalk = c.setsTotal - c.setsUnchanged;
      return toWalk > 0 ? (c.setsDone - c.setsUnchanged) / toWalk : 0;
    }
    // From the end of the listing on, the totals are exact: the bar goes on from the true share of
    // bytes done then, or from where it stood if that was further (it never goes back).
    this.listedAt ??= { fraction: Math.max(c.bytesTotal > 0 ? c.bytesDone / c.bytesTotal : 0, this.transfersHigh), bytesDone: c.bytesDone, filesDone: c.filesDone };
    const from = this.listedAt;
    const bytesLeft = c.bytesTotal - from.bytesDone;
    const filesLeft = c.filesTotal - from.filesDone;
    const after =
      bytesLeft > 0 ? (c.bytesDone - from.bytesDone) / bytesLeft : filesLeft > 0 ? (c.filesDone - from.filesDone) / filesLeft : c.setsTotal > 0 ? c.setsDone / c.setsTotal : 1;
    return from.fraction + (1 - from.fraction) * Math.min(1, Math.max(0, after));
  }

  /**
   * The whole bar: the transfers' share and the stages' own work, weighed by their counts of
   * files (a sync with only stage work left follows the stages alone; one without any, the transfers).
   */
  private wholeFraction(transfers: number, totals: Totals | undefined): number {
    const work = this.counts.stageWork();
    if (work.total === 0) return transfers;
    const files = Math.max(totals?.files ?? 0, this.counts.filesTotal);
    const stageShare = work.total / (work.total + files);
    return transfers * (1 - stageShare) + (work.done / work.total) * stageShare;
  }

  /** What the sync is doing now: the walk's phase, and the transfers when they run alongside. */
  private phases(retrying: boolean): SyncPhase[] {
    const c = this.counts;
    const transfers = c.active.size === 0 ? undefined : [...c.active].every((a) => a.checking) ? 'checking' : 'downloading';
    if (c.phase === 'writing_manifest' || c.phase === 'checking_media') return [c.phase];
    const first: SyncPhase = retrying ? 'retrying' : c.phase === 'downloading' && transfers ? transfers : c.phase;
    return transfers && transfers !== first && (first === 'listing' || first === 'retrying') ? [first, transfers] : [first];
  }

  private tick(force = false): void {
    const c = this.counts;
    const now = this.clock.now();
    const t = this.unpausedNow(now);
    const h = this.high;
    const raise = (k: keyof typeof h, v: number) => (h[k] = Math.max(h[k], v));
    const totals = this.totals();
    raise('setsDone', c.setsDone);
    raise('setsTotal', Math.max(c.setsTotal, h.setsDone));
    raise('bytesDone', c.bytesDone);
    raise('bytesTotal', Math.max(c.bytesTotal, h.bytesDone));
    raise('filesDone', c.filesDone);
    raise('filesTotal', Math.max(c.filesTotal, h.filesDone));
    this.transfersHigh = Math.max(this.transfersHigh, Math.min(1, this.fraction(totals)));
    const work = c.stageWork();
    raise('fraction', Math.min(work.total > work.done ? 0.999 : 1, this.wholeFraction(this.transfersHigh, totals)));

    if (this.transferStartedAt === undefined && c.bytesDownloaded > 0) this.transferStartedAt = t;
    this.samples.push({ t, received: c.bytesDownloaded, fraction: h.fraction, stageDone: work.done });
    while (this.samples.length > 2 && t - this.samples[0]!.t > RATE_WINDOW_MS) this.samples.shift();
    const first = this.samples[0]!;
    const dt = Math.max(MIN_RATE_WINDOW_MS, t - first.t) / 1000;
    // Paused: nothing is received, whatever the window still remembers.
    const bytesPerSecond = c.paused ? 0 : Math.max(0, (c.bytesDownloaded - first.received) / dt);
    // Every tick, so a transfer's first sighting is within an interval of its start, emitted or not.
    const fileRates = this.fileRates(now, t);

    const retry = c.walkRetry && c.walkRetry.until > now ? c.walkRetry : undefined;
    const phases = this.phases(retry !== undefined);
    const phase = phases[0]!;
    const key = `${h.setsDone}/${h.setsTotal}/${h.bytesDone}/${h.bytesTotal}/${h.filesDone}/${h.filesTotal}/${totals?.bytes}/${totals?.files}/${c.active.size}/${phases.join('+')}/${c.paused}/${retry ? Math.ceil((retry.until - now) / 1000) : ''}/${work.done}/${work.total}`;
    if (!force && key === this.lastEmitted && now - this.lastEmittedAt < this.heartbeatMs) return;
    this.lastEmitted = key;
    this.lastEmittedAt = now;

    const event: ProgressEvent = {
      type: 'progress',
      phase,
      phases,
      paused: c.paused,
      setsDone: h.setsDone,
      setsTotal: h.setsTotal,
      bytesDone: h.bytesDone,
      bytesTotal: h.bytesTotal,
      filesDone: h.filesDone,
      filesTotal: h.filesTotal,
      estimated: !c.listed,
      // Never below what is listed or done (the held counts).
      bytesTotalEstimate: totals ? Math.max(totals.bytes, h.bytesTotal) : null,
      filesTotalEstimate: totals ? Math.max(totals.files, h.filesTotal) : null,
      fraction: h.fraction,
      bytesPerSecond: Math.round(bytesPerSecond),
      etaSeconds: null,
      bytesRedownloaded: c.bytesRedownloaded,
      ...(c.phase === 'checking_media' ? { mediaLeft: work.total - work.done } : {}),
      ...(retry ? { retry: { attempt: retry.attempt, of: retry.of, inSeconds: Math.ceil((retry.until - now) / 1000) } } : {}),
      active: [...c.active].map((a) => ({ fileId: a.fileId, path: a.path, bytesDone: a.bytesDone, sizeBytes: a.sizeBytes, bytesPerSecond: c.paused ? 0 : (fileRates.get(a) ?? 0) })),
    };
    event.etaSeconds = this.etaWithStages(t, first, work, c.phase === 'checking_media' ? null : this.eta(t, bytesPerSecond, first, event.active, totals ? Math.max(totals.bytes, h.bytesTotal) : null));
    this.emit(event);
  }

  /**
   * The later of the transfers' ETA and the stages': the files they have left at the rate they
   * went over the window (they run beside the transfers). Null while either is not known yet.
   */
  private etaWithStages(t: number, first: Sample, work: { done: number; total: number }, transfers: number | null): number | null {
    const left = work.total - work.done;
    const transfersDone = this.counts.phase === 'checking_media';
    if (left <= 0) return transfersDone ? 0 : transfers;
    if (this.counts.paused) return null;
    const seconds = (t - first.t) / 1000;
    const rate = seconds >= ETA_MIN_TRANSFER_MS / 1000 ? (work.done - first.stageDone) / seconds : 0;
    if (rate <= 0) return null;
    const stages = Math.round(left / rate);
    if (transfersDone) return stages;
    return transfers === null ? null : Math.max(transfers, stages);
  }

  private eta(t: number, bytesPerSecond: number, first: Sample, active: ProgressEvent['active'], total: number | null): number | null {
    const c = this.counts;
    const h = this.high;
    if (h.fraction >= 1) return 0;
    if (c.paused || this.transferStartedAt === undefined || t - this.transferStartedAt < ETA_MIN_TRANSFER_MS || h.fraction < ETA_MIN_FRACTION) return null;
    if (total !== null && bytesPerSecond > 0 && total > c.bytesDone) {
      // The sync cannot end before its slowest transfer at that file's own rate: with a few slow
      // files left, the total rate still remembers the fast ones that have finished.
      const slowest = Math.max(0, ...active.filter((a) => a.bytesPerSecond > 0).map((a) => (a.sizeBytes - a.bytesDone) / a.bytesPerSecond));
      return Math.round(Math.max((total - c.bytesDone) / bytesPerSecond, slowest));
    }
    // No byte total (or none left): how fast the fraction itself moved over the window.
    const seconds = (t - first.t) / 1000;
    const perSecond = seconds > 0 ? (h.fraction - first.fraction) / seconds : 0;
    return perSecond > 0 ? Math.round((1 - h.fraction) / perSecond) : null;
  }

  /**
   * Each transfer's received rate over its last 5 s of unpaused time. A transfer's window starts
   * at its first byte (or the last Resume, if later), so one seen in a single tick has a rate.
   */
  private fileRates(now: number, t: number): Map<ActiveTransfer, number> {
    const rates = new Map<ActiveTransfer, number>();
    for (const a of this.fileSamples.keys()) if (!this.counts.active.has(a)) this.fileSamples.delete(a);
    for (const a of this.counts.active) {
      let s = this.fileSamples.get(a);
      if (!s) {
        // Its first byte came since the last Resume: its window starts there, from 0 bytes received.
        const from = a.firstByteAt !== undefined && a.firstByteAt >= this.resumedAt && a.firstByteAt <= now ? a.firstByteAt : undefined;
        s = from === undefined ? [] : [{ t: this.unpausedAt(from), received: 0 }];
        this.fileSamples.set(a, s);
      }
      s.push({ t, received: a.received });
      while (s.length > 2 && t - s[0]!.t > RATE_WINDOW_MS) s.shift();
      const dt = Math.max(MIN_FILE_RATE_WINDOW_MS, t - s[0]!.t) / 1000;
      rates.set(a, Math.round(Math.max(0, (a.received - s[0]!.received) / dt)));
    }
    return rates;
  }
}

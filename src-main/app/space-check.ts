// Whether a running sync still fits on its disk. The bytes a sync has to download are known only
// as it lists the sets (the service gives no size up front), so the check follows the sync's
// own events: each listed file adds its size at once (synchronously, so the controller can
// hold the sync before the queue starts that file), and every progress event resets the figure
// to the engine's exact one (bytes to download minus bytes done, resumed parts included) and
// reads the free space again (what the sync wrote meanwhile is gone from it).
import type { SyncEvent } from '../../src-shared/sync-events';

export interface Shortfall {
  bytesToDownload: number;
  freeBytes: number;
}

export class SpaceCheck {
  private free: number | null = null;
  private toDownload = 0;
  private reading = false;

  constructor(private readonly readFree: () => Promise<number | null>) {}

  /** Reads the free space once before the sync starts. */
  async prime(): Promise<void> {
    this.free = await this.readFree().catch(() => null);
  }

  /** Folds one event in; answers the shortfall when what is left to download exceeds the free space. */
  observe(event: SyncEvent): Shortfall | null {
    if (event.type === 'file' && event.state === 'queued') this.toDownload += event.sizeBytes;
    else if (event.type === 'progress') {
      this.toDownload = Math.max(0, event.bytesTotal - event.bytesDone);
      this.refresh();
    } else return null;
    if (this.free === null || this.toDownload <= this.free) return null;
    return { bytesToDownload: this.toDownload, freeBytes: this.free };
  }

  private refresh(): void {
    if (this.reading) return;
    this.reading = true;
    void this.readFree()
      .then((free) => {
        if (free !== null) this.free = free;
      })
      .catch(() => undefined)
      .finally(() => (this.reading = false));
  }
}

/** The gate a hold closes (the run's pause gate). */
interface HoldGate {
  readonly paused: boolean;
  pause(): void;
}

/**
 * The low-space hold of one run, wherever its engine runs (the main thread, or the engine thread:
 * engine-worker.ts): fed each event synchronously, it closes the gate inside the event that
 * shows the shortfall, so the queue does not start the file that did not fit, and calls `onHeld`.
 * The resume that opens the gate after a hold is the answer "download anyway": the run is not
 * held again.
 */
export class SpaceHold {
  private holding = false;
  private answered = false;

  constructor(
    private readonly check: SpaceCheck,
    private readonly gate: HoldGate,
    private readonly onHeld: (shortfall: Shortfall) => void,
  ) {}

  observe(event: SyncEvent): void {
    if (this.holding && !this.gate.paused) {
      this.holding = false;
      this.answered = true;
    }
    if (this.answered || this.holding) return;
    const shortfall = this.check.observe(event);
    if (!shortfall) return;
    this.holding = true;
    this.gate.pause();
    this.onHeld(shortfall);
  }
}

// The post-verify media stage (docs/contracts.md §7, post-verify stages): a verified file is
// probed on a pool of its own (PROBES_AT_ONCE), never in a transfer slot, so downloads go on
// while ffprobe runs. The result lands on the file's entry (FileEntry.media) with the sha256 it
// was probed at: a file is probed once per verified version, and a no-op sync probes nothing.
// A missing or failing prober is said once (a warning) and never fails the sync: files are
// `unprobed`, and probed again by a later sync that has a prober.
import path from 'node:path';
import type { FileRecord } from '../../../src-shared/delivery-api';
import type { SyncEvent } from '../../../src-shared/sync-events';
import type { Destination } from '../destination/destination';
import type { RunState } from '../run-state';
import type { LocalSet } from '../state/set-store';
import { isProblem, judge, rulesOfCollectionJson, type MediaEntry, type Rules } from './media-check';
import { Prober } from './prober';

/** ffprobe is a process of its own (one core each while it runs): two at a time on a 2-core machine leaves the transfers theirs. */
const PROBES_AT_ONCE = 2;

export class MediaStage {
  private readonly prober = new Prober();
  private readonly queue: Array<() => Promise<void>> = [];
  private running = 0;
  private idleWaiters: Array<() => void> = [];
  private warned = false;
  private rules: Promise<Rules> | undefined;
  /** DATASET_SYNC_MEDIA_CHECK=off (benchmarks only): the stage does nothing, so a sync can be timed without it. */
  private readonly off = process.env.DATASET_SYNC_MEDIA_CHECK === 'off';

  constructor(
    private readonly dest: Destination,
    private readonly state: RunState,
    private readonly emit: (e: SyncEvent) => void,
    private readonly signal: AbortSignal,
  ) {}

  /**
   * A verified (or up-to-date) file of `local`: probed unless its entry already holds a probe of
   * this sha256; a file whose recorded probe shows a problem is reported again (a `media` event).
   */
  check(local: LocalSet, rel: string, file: FileRecord): void {
    const entry = local.files[rel];
    if (this.off || !entry) return;
    const known = entry.media;
    if (known && known.sha256 === entry.sha256 && known.result !== 'unprobed') {
      void this.report(local.id, rel, known, false);
      return;
    }
    const sha256 = entry.sha256;
    this.queue.push(() => this.probe(local, rel, sha256, file));
    this.pump();
  }

  private pump(): void {
    while (this.running < PROBES_AT_ONCE && this.queue.length > 0) {
      const task = this.queue.shift()!;
      this.running++;
      void task()
        .catch(() => undefined)
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
    if (this.running === 0 && this.queue.length === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Resolves once every probe queued so far has ended (a cancelled sync drops those not started). */
  idle(): Promise<void> {
    if (this.signal.aborted) this.queue.length = 0;
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async probe(local: LocalSet, rel: string, sha256: string, file: FileRecord): Promise<void> {
    if (this.signal.aborted) return;
    const root = this.dest.capabilities.localRoot;
    let media: MediaEntry;
    if (!root) {
      // A bucket: its objects are not local files (probing the staged bytes before commit is not built yet).
      this.warnOnce(`Media check: files in ${this.dest.label} are not probed (a bucket destination); media.csv lists them as unprobed.`);
      media = { sha256, result: 'unprobed' };
    } else if (!this.prober.available) {
      media = { sha256, result: 'unprobed' };
    } else {
      const outcome = await this.prober.probe(path.join(root, ...rel.split('/')), this.signal);
      if (this.signal.aborted) return;
      if (outcome.kind === 'no_prober') {
        this.warnOnce(`Media check: ffprobe could not run (${outcome.detail}); files are listed as unprobed in media.csv. Install ffmpeg (or the npm package @ffprobe-installer/ffprobe) to check them.`);
        media = { sha256, result: 'unprobed' };
      } else if (outcome.kind === 'unreadable') media = { sha256, result: 'unreadable' };
      else media = { sha256, result: 'probed', probe: outcome.media, ...(file.media ? { listed: file.media } : {}) };
    }
    const entry = local.files[rel];
    if (!entry || entry.sha256 !== sha256) return; // replaced meanwhile: its new version is probed on its own
    const before = entry.media;
    if (!(before?.result === 'unprobed' && media.result === 'unprobed' && before.sha256 === sha256)) {
      entry.media = media;
      this.state.putLocal(local);
    }
    if (media.result !== 'unprobed') await this.report(local.id, rel, media, true);
  }

  private async report(setId: number, rel: string, media: MediaEntry, probed: boolean): Promise<void> {
    this.rules ??= this.dest.readText('collection.json').then(rulesOfCollectionJson, () => ({}));
    const v = judge(rel, media, await this.rules);
    // Files probed now are all reported; a file probed before only when it has a problem (the app shows it again).
    if (!probed && !isProblem(v)) return;
    this.emit({ type: 'media', setId, path: rel, rules: v.rules, listing: v.listing, problems: v.words, probed });
  }

  private warnOnce(message: string): void {
    if (this.warned) return;
    this.warned = true;
    this.emit({ type: 'warning', message });
  }
}

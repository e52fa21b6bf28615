// The post-verify media stage (docs/contracts.md §7, post-verify stages): a verified file is
// probed on a pool of its own (PROBES_AT_ONCE), never in a transfer slot, so downloads go on
// while ffprobe runs. The result lands on the file's entry (FileEntry.media) with the sha256 it
// was probed at: a file is probed once per verified version, and a no-op sync probes nothing.
// A missing or failing prober is said once (a warning) and never fails the sync: files are
// `unprobed`, and a later sync that has a prober probes every file of a folder that still lacks
// a probe (checkUnprobed), whether or not its set changed; so does the sync after one with the
// check off.
//
// A bucket has no local files: the engine asks its upload to keep the verified bytes it staged
// on this machine (wantsLocalBytes; s3/upload.ts sets them aside at commit) and hands them here
// (LocalBytes), and they are probed like a folder's file, then released (removed), whatever
// happens to the probe: the transfer slot is free at commit and the bytes live only as long as
// their probe waits or runs. A bucket file whose bytes are not on this machine (verified by an
// earlier sync without a prober, or found in the bucket by its sha256 metadata) stays `unprobed`:
// probing it would mean downloading it again.
import path from 'node:path';
import { MediaProbeSchema, type MediaProbe } from '../../../src-shared/delivery-api';
import type { SyncEvent } from '../../../src-shared/sync-events';
import { readSetJson } from '../dataset';
import type { Destination, LocalBytes } from '../destination/destination';
import type { RunState } from '../run-state';
import type { LocalSet } from '../state/set-store';
import { isProblem, judge, rulesOfCollectionJson, type MediaEntry, type Rules } from './media-check';
import { Prober } from './prober';

/** ffprobe is a process of its own (one core each while it runs): two at a time on a 2-core machine leaves the transfers theirs. */
const PROBES_AT_ONCE = 2;
/** Probes checkUnprobed keeps queued ahead: memory stays flat however many files a sync without the check left unprobed. */
const OWED_QUEUED_MAX = 64;

/** What a probe needs of the file's listing (a FileRecord, or its set.json entry): its `media`, compared with what ffprobe reads. */
interface Listed {
  media?: MediaProbe;
}

/**
 * The probe the entry holds of the file's current version (its sha256), when a prober read it;
 * undefined when it still owes one (none, another version's, or `unprobed`). The same rule as
 * SetStore.setsWithUnprobedFiles's query.
 */
function probeOfThisVersion(entry: LocalSet['files'][string]): MediaEntry | undefined {
  const known = entry.media;
  return known && known.sha256 === entry.sha256 && known.result !== 'unprobed' ? known : undefined;
}

export class MediaStage {
  private readonly prober = new Prober();
  /** Probes waiting for a place: `drop` lets go of what one holds when a cancelled sync drops it. */
  private readonly queue: Array<{ run: () => Promise<void>; drop: () => void }> = [];
  private running = 0;
  private idleWaiters: Array<() => void> = [];
  /** Called when the queue has room again (checkUnprobed waits for it). */
  private roomWaiters: Array<() => void> = [];
  /** Files queued or being probed, by path and sha256: a file is probed once per version, whoever asks (its probe, once recorded, answers later asks). */
  private readonly queued = new Set<string>();
  /** Files checkUnprobed has still to queue: counted in `pending`, so "N files left" says all of them. */
  private owed = 0;
  private warned = false;
  private warnedNotLocal = false;
  private rules: Promise<Rules> | undefined;
  /**
   * DATASET_SYNC_MEDIA_CHECK=off: the stage does nothing, so a sync can be timed without it, or
   * many small clips fetched first (one ffprobe start per file sets the pace) and checked by the
   * next sync without it (checkUnprobed).
   */
  private readonly off = process.env.DATASET_SYNC_MEDIA_CHECK === 'off';

  constructor(
    private readonly dest: Destination,
    private readonly state: RunState,
    private readonly emit: (e: SyncEvent) => void,
    private readonly signal: AbortSignal,
  ) {}

  /** True when a verified file's bytes should be kept on this machine for the probe (a bucket, the check on, a prober not known missing). */
  get wantsLocalBytes(): boolean {
    return !this.off && !this.dest.capabilities.localRoot && this.prober.available;
  }

  /**
   * A verified (or up-to-date) file of `local`: probed unless its entry already holds a probe of
   * this sha256; a file whose recorded probe shows a problem is reported again (a `media` event).
   * `bytes` (a bucket's file just verified): its verified bytes, released here in every case.
   */
  check(local: LocalSet, rel: string, file: Listed, bytes?: LocalBytes): void {
    const entry = local.files[rel];
    const release = () => void bytes?.release();
    if (this.off || !entry) return release();
    const known = probeOfThisVersion(entry);
    if (known) {
      release();
      void this.report(local.id, rel, known, false);
      return;
    }
    const sha256 = entry.sha256;
    const key = `${rel}\n${sha256}`;
    if (this.queued.has(key)) return release();
    this.queued.add(key);
    const done = () => {
      this.queued.delete(key);
      release();
    };
    this.queue.push({ run: () => this.probe(local, rel, sha256, file, bytes).finally(done), drop: done });
    this.pump();
  }

  private pump(): void {
    while (this.running < PROBES_AT_ONCE && this.queue.length > 0) {
      const task = this.queue.shift()!;
      this.running++;
      void task
        .run()
        .catch(() => undefined)
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
    if (this.queue.length < OWED_QUEUED_MAX) for (const w of this.roomWaiters.splice(0)) w();
    if (this.running === 0 && this.queue.length === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Probes queued or running, and those checkUnprobed has yet to queue: what the end of a sync still waits for (the `checking_media` phase). */
  get pending(): number {
    return this.running + this.queue.length + this.owed;
  }

  /**
   * Whether files verified by earlier syncs may still lack a probe: media.csv, as last written,
   * counted files as `unprobed` (a sync without a prober, or with the check off), or was never
   * written by a version with the check. Only a folder's files: a bucket's bytes are not here.
   */
  owesProbes(): boolean {
    if (this.off || !this.dest.capabilities.localRoot || !this.prober.available || !this.state.heldSetsAtStart) return false;
    const last = this.state.head.media;
    return last === undefined || last.unprobed > 0;
  }

  /**
   * Queues a probe of every file of the dataset that has none of its current version and that
   * this run did not probe (owesProbes): a check put off, or made without a prober, is made by
   * the next sync that can, once per file, whether or not its set changed. Their listing's media
   * comes from the set's set.json. Resolves once every such file is queued; idle() then waits
   * for the probes.
   */
  async checkUnprobed(): Promise<void> {
    if (!this.owesProbes() || !(await this.prober.ready(this.signal))) return;
    const owed = this.state.store.setsWithUnprobedFiles();
    this.owed = owed.reduce((n, [, files]) => n + files, 0);
    try {
      for (const [id, files] of owed) {
        if (this.signal.aborted || !this.prober.available) return;
        while (this.queue.length >= OWED_QUEUED_MAX) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
        const local = this.state.store.get(id);
        const listing = local ? await this.listedMedia(id) : new Map<string, MediaProbe>();
        this.owed -= files;
        if (!local) continue;
        for (const [rel, entry] of Object.entries(local.files)) {
          if (probeOfThisVersion(entry)) continue;
          this.check(local, rel, { media: listing.get(rel.slice(rel.lastIndexOf('/') + 1)) });
        }
      }
    } finally {
      this.owed = 0;
      this.pump();
    }
  }

  /** The listing's media of each file of set `id`, by filename, as its set.json keeps them; empty when it cannot be read. */
  private async listedMedia(id: number): Promise<Map<string, MediaProbe>> {
    const out = new Map<string, MediaProbe>();
    // No readable set.json: the files are probed without a listing to compare with.
    const set = (await readSetJson(this.dest, id)) as { files?: unknown } | null;
    for (const f of Array.isArray(set?.files) ? (set.files as Array<{ filename?: unknown; media?: unknown } | null>) : []) {
      const parsed = MediaProbeSchema.safeParse(f?.media);
      if (typeof f?.filename === 'string' && parsed.success) out.set(f.filename, parsed.data);
    }
    return out;
  }

  /** Resolves once every probe queued so far has ended (a cancelled sync drops those not started). */
  idle(): Promise<void> {
    if (this.signal.aborted) for (const task of this.queue.splice(0)) task.drop();
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async probe(local: LocalSet, rel: string, sha256: string, file: Listed, bytes: LocalBytes | undefined): Promise<void> {
    if (this.signal.aborted) return;
    const root = this.dest.capabilities.localRoot;
    const where = root ? path.join(root, ...rel.split('/')) : bytes?.path;
    let media: MediaEntry;
    if (!this.prober.available) {
      media = { sha256, result: 'unprobed' };
    } else if (!where) {
      // A bucket's file whose verified bytes are not on this machine (see the header).
      if (!this.warnedNotLocal) {
        this.warnedNotLocal = true;
        this.emit({
          type: 'warning',
          message: `Media check: some files in ${this.dest.label} were verified earlier or elsewhere and their bytes are not on this machine; they are not probed and media.csv lists them as unprobed.`,
        });
      }
      media = { sha256, result: 'unprobed' };
    } else {
      const outcome = await this.prober.probe(where, this.signal);
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

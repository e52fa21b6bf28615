// The media check as a stage (stages/stage.ts; docs/contracts.md §1, media.csv): what each verified
// video is (size, frame rate, duration, codec), judged against the collection's media_rules and its
// listing. The container's headers are read in-process from the bytes as they are hashed (a tap on
// the transfer: container/container-reader.ts), so a download is checked the moment it is verified,
// with no child process and no second read, and a bucket needs no local copy. A file verified without
// a download (up to date, adopted) whose version has no result yet, or files an earlier sync with the
// check off left unchecked, are read from the destination on the stage's own queue (check-queue.ts:
// header-read.ts seeks past media data), beside the downloads; progress counts that work.
//
// DATASET_SYNC_MEDIA_CHECK=off leaves every file unchecked (media.csv says `unprobed`; the next sync
// with the check on reads them). DATASET_SYNC_MEDIA_CHECK=deep asks ffprobe instead (prober.ts), a
// process per file of a folder, on the same queue: the check a user asks for, never the default.
import path from 'node:path';
import { MediaProbeSchema, type MediaProbe } from '../../../src-shared/delivery-api';
import type { SyncEvent } from '../../../src-shared/sync-events';
import { readSetJson } from '../dataset';
import type { Destination } from '../destination/destination';
import type { RunState } from '../run-state';
import type { Stage, StageContext, StageFile, StageWork, StreamTap, VerifiedHow } from '../stages/stage';
import { CheckQueue } from './check-queue';
import { createContainerReader, type ContainerReader, type HeaderProbe } from './container/container-reader';
import { readHeaders } from './header-read';
import { isProblem, judge, rulesOfCollectionJson, type MediaEntry, type Rules } from './media-check';
import { mediaCsvWriter, mediaFingerprintOf } from './media-file';
import { entryOf, MEDIA_STAGE, resultOf } from './media-result';
import { Prober, type ProbeOutcome } from './prober';

type Mode = 'headers' | 'deep' | 'off';

function modeOf(env: NodeJS.ProcessEnv): Mode {
  const v = env.DATASET_SYNC_MEDIA_CHECK;
  return v === 'off' ? 'off' : v === 'deep' ? 'deep' : 'headers';
}

/** A tap is the container reader itself: it takes the bytes and says when it has seen enough. */
type HeaderTap = ContainerReader & StreamTap;

export class MediaStage implements Stage {
  readonly name = MEDIA_STAGE;
  /** The sets whose files got a result in this sync: media.csv's rows of sets it holds already must be written again. */
  private readonly checkedSets = new Set<number>();
  readonly datasetFiles = [mediaCsvWriter(() => this.checkedSets)];
  private readonly mode: Mode;
  private readonly queue: CheckQueue;
  /** Files queued or being read, by path and sha256: a version is checked once, whoever asks. */
  private readonly queued = new Set<string>();
  private readonly prober: Prober | undefined;
  private rules: Promise<Rules> | undefined;
  /** The rules once read (report judges without a promise from then on). */
  private rulesRead: Rules | undefined;
  private warned = false;
  /** Owed checks of earlier syncs being queued (start()): finish() waits for the pass too. */
  private owedPass: Promise<void> = Promise.resolve();
  private readonly dest: Destination;
  private readonly state: RunState;
  private readonly emit: (e: SyncEvent) => void;
  private readonly signal: AbortSignal;

  constructor(ctx: StageContext, env: NodeJS.ProcessEnv = process.env) {
    this.dest = ctx.dest;
    this.state = ctx.state;
    this.emit = ctx.emit;
    this.signal = ctx.signal;
    this.mode = modeOf(env);
    // ffprobe reads local files: a bucket's deep check falls back to the headers.
    if (this.mode === 'deep' && this.dest.capabilities.localRoot) this.prober = new Prober(env);
    this.queue = new CheckQueue(ctx.signal);
  }

  tap(_file: StageFile): StreamTap | undefined {
    if (this.mode === 'off' || this.prober) return undefined;
    return createContainerReader() as HeaderTap;
  }

  verified(file: StageFile, _how: VerifiedHow, tap: StreamTap | undefined): void {
    if (this.mode === 'off') return;
    if (tap) {
      // Every byte of this version went through the reader: the answer is here, nothing is read again.
      this.record(file, entryOfProbe(file, (tap as HeaderTap).finish(file.sizeBytes)), true);
      return;
    }
    const known = entryOf(this.state.store.stageResult(MEDIA_STAGE, file), file.sha256);
    if (known) {
      // Checked by an earlier sync: said again only when it has a problem (the app shows it again).
      this.report(file.setId, file.path, known, false);
      return;
    }
    // Not seen as it streamed (up to date or adopted with no result of this version, or the deep check): read on the stage's queue.
    this.queueRead(file);
  }

  work(): StageWork {
    return { done: this.queue.done, total: this.queue.total };
  }

  /**
   * Files of the dataset that owe a check of their current version (an earlier sync with the check
   * off, or unable to read them) are read now, whatever their set, beside the downloads. Only when
   * the last media.csv counted unprobed files (or none was written by a version with the check):
   * a dataset fully checked asks the store nothing.
   */
  start(): void {
    if (this.mode === 'off') return;
    // The rules are read now (collection.json was just written), so the first files are judged at once too.
    this.rules ??= this.dest.readText('collection.json').then(rulesOfCollectionJson, () => ({}));
    void this.rules.then((rules) => (this.rulesRead = rules));
    if (!this.state.heldSetsAtStart) return;
    const last = mediaFingerprintOf(this.state.head);
    if (last !== undefined && last.unprobed === 0) return;
    this.owedPass = this.queueOwed().catch((e: unknown) => this.warnOnce(`Media check: could not list the files still to check (${(e as Error).message}); the next sync tries again.`));
  }

  async finish(): Promise<void> {
    await this.owedPass;
    await this.queue.idle();
  }

  private async queueOwed(): Promise<void> {
    const owed = this.state.store.setsOwingStage(MEDIA_STAGE);
    let announced = owed.reduce((n, [, files]) => n + files, 0);
    this.queue.expect(announced);
    try {
      for (const [id, files] of owed) {
        if (this.signal.aborted) return;
        await this.queue.room();
        const local = this.state.store.get(id);
        const listing = local ? await this.listedMedia(id) : new Map<string, MediaProbe>();
        let queued = 0;
        for (const [rel, entry] of Object.entries(local?.files ?? {})) {
          if (queued === files) break;
          const file: StageFile = { setId: id, fileId: entry.fileId, path: rel, sha256: entry.sha256, sizeBytes: entry.sizeBytes };
          if (entryOf(this.state.store.stageResult(MEDIA_STAGE, file), file.sha256)) continue;
          const listed = listing.get(rel.slice(rel.lastIndexOf('/') + 1));
          if (listed) file.listedMedia = listed;
          if (this.queueRead(file, true)) queued++;
        }
        // Files counted but not queued (replaced meanwhile, or queued by the walk already) are no work to wait for.
        this.queue.unexpect(files - queued);
        announced -= files;
      }
    } finally {
      this.queue.unexpect(announced);
    }
  }

  /** Queues a read of the file's headers (or ffprobe); false when that version is queued already. `announced`: counted by the owed pass. */
  private queueRead(file: StageFile, announced = false): boolean {
    const key = `${file.path}\n${file.sha256}`;
    if (this.queued.has(key)) return false;
    this.queued.add(key);
    const done = () => void this.queued.delete(key);
    this.queue.push({ run: () => this.readAndRecord(file).finally(done), drop: done }, announced);
    return true;
  }

  private async readAndRecord(file: StageFile): Promise<void> {
    if (this.signal.aborted) return;
    let entry: MediaEntry;
    try {
      entry = this.prober ? await this.deepCheck(file) : entryOfProbe(file, await readHeaders(this.dest, file.path, file.sizeBytes, this.signal));
    } catch (e) {
      if (this.signal.aborted) return;
      // Not the file's fault (gone meanwhile, a read refused): no result, so the next sync asks again.
      this.warnOnce(`Media check: could not read ${file.path} in ${this.dest.label} (${(e as Error).message}); it is listed as unprobed in media.csv until a sync can read it.`);
      return;
    }
    if (this.signal.aborted) return;
    this.record(file, entry, true);
  }

  /** The deep check (DATASET_SYNC_MEDIA_CHECK=deep): ffprobe on the verified local file. */
  private async deepCheck(file: StageFile): Promise<MediaEntry> {
    const where = path.join(this.dest.capabilities.localRoot!, ...file.path.split('/'));
    const outcome: ProbeOutcome = await this.prober!.probe(where, this.signal);
    if (outcome.kind === 'no_prober') throw new Error(`ffprobe could not run: ${outcome.detail}`);
    if (outcome.kind === 'unreadable') return { sha256: file.sha256, result: 'unreadable' };
    return { sha256: file.sha256, result: 'probed', probe: outcome.media, ...(file.listedMedia ? { listed: file.listedMedia } : {}) };
  }

  /** Keeps the result of this version (with the records' next flush) and says what was found. */
  private record(file: StageFile, entry: MediaEntry, reportAll: boolean): void {
    this.state.store.recordStageResult(MEDIA_STAGE, file, resultOf(entry));
    this.checkedSets.add(file.setId);
    this.report(file.setId, file.path, entry, reportAll);
  }

  /** The listing's media of each file of set `id`, by filename, as its set.json keeps them; empty when it cannot be read. */
  private async listedMedia(id: number): Promise<Map<string, MediaProbe>> {
    const out = new Map<string, MediaProbe>();
    const set = (await readSetJson(this.dest, id).catch(() => null)) as { files?: unknown } | null;
    for (const f of Array.isArray(set?.files) ? (set.files as Array<{ filename?: unknown; media?: unknown } | null>) : []) {
      const parsed = MediaProbeSchema.safeParse(f?.media);
      if (typeof f?.filename === 'string' && parsed.success) out.set(f.filename, parsed.data);
    }
    return out;
  }

  /**
   * Says what was found (a `media` event), judged against collection.json's rules: read once, and
   * from then on each file is judged at once, without a promise (a first sync verifies thousands a second).
   */
  private report(setId: number, rel: string, media: MediaEntry, probed: boolean): void {
    if (this.rulesRead !== undefined) return this.say(this.rulesRead, setId, rel, media, probed);
    this.rules ??= this.dest.readText('collection.json').then(rulesOfCollectionJson, () => ({}));
    void this.rules.then((rules) => {
      this.rulesRead = rules;
      this.say(rules, setId, rel, media, probed);
    });
  }

  private say(rules: Rules, setId: number, rel: string, media: MediaEntry, probed: boolean): void {
    const v = judge(rel, media, rules);
    // Files checked now are all reported; a file checked before only when it has a problem.
    if (!probed && !isProblem(v)) return;
    this.emit({ type: 'media', setId, path: rel, rules: v.rules, listing: v.listing, problems: v.words, probed });
  }

  private warnOnce(message: string): void {
    if (this.warned) return;
    this.warned = true;
    this.emit({ type: 'warning', message });
  }
}

/** What the engine records of a header reading: the first video stream, with the listing it is compared with. */
function entryOfProbe(file: StageFile, probe: HeaderProbe): MediaEntry {
  if (probe.kind === 'unreadable') return { sha256: file.sha256, result: 'unreadable' };
  return { sha256: file.sha256, result: 'probed', probe: probe.media, ...(file.listedMedia ? { listed: file.listedMedia } : {}) };
}

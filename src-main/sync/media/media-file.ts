// DEST/media.csv (docs/contracts.md §1): one row per file of the manifest, from the media check's
// result recorded for its version (media-result.ts) judged against the collection's media_rules (collection.json)
// and its listing. Written whole through Destination.writeAtomic, like the manifest, whenever the
// manifest is, or extended by the new sets' rows when the manifest was (a sync that only added
// sets); kept as it is on a no-op sync (its counts for the summary then come from the state, or
// from reading it when it changed since we wrote it).
import { StringDecoder } from 'node:string_decoder';
import { csvBody } from '../csv-body';
import { datasetCsvText } from '../dataset-csv';
import type { Destination } from '../destination/destination';
import { asWritten, fingerprintOf } from '../dataset';
import type { RunState } from '../run-state';
import type { EngineState, MediaFingerprint } from '../state/head';
import { filesBySlot, type LocalSet, type LocalSets } from '../state/records';
import type { DatasetFileWriter } from '../stages/stage';
import { isProblem, judge, rulesOfCollectionJson, type Rules } from './media-check';
import { entryOf, MEDIA_STAGE } from './media-result';

export const MEDIA_COLUMNS = ['path', 'width', 'height', 'fps', 'duration', 'codec', 'rules', 'listing'] as const;

export const MEDIA_KEY = 'media.csv';

/** The files whose rules or listing is not `ok` in media.csv (rows in the manifest's order: set id, then slot). */
export interface MediaCounts {
  /** Files whose rules or listing is not `ok` (summary.mediaProblems), unprobed ones included. */
  problems: number;
  /** Of those, the files no prober read (`unprobed`): not known to break anything (summary.mediaUnprobed). */
  unprobed: number;
}


/** The rows of `sets`' files (the manifest's order), judged against `rules`; counted into `counts`. */
function* rowsOf(sets: Iterable<LocalSet>, rules: Rules, counts: MediaCounts): Generator<string[]> {
  for (const set of sets) {
    for (const [rel, f] of filesBySlot(set)) {
      const media = entryOf(f.results?.[MEDIA_STAGE], f.sha256);
      const v = judge(rel, media, rules);
      if (isProblem(v)) counts.problems++;
      if (v.rules === 'unprobed') counts.unprobed++;
      const p = media?.probe;
      yield [rel, ...(p ? [p.width, p.height, p.fps, p.duration, p.codec].map(String) : ['', '', '', '', '']), v.rules, v.listing];
    }
  }
}

/** media.csv's counts, and the file as written (null: kept as it was). */
export type MediaWritten = MediaCounts & { written: MediaFingerprint | null };

/** media.csv must be written whole, judged against these rules (the end of the sync's shared pass does it: writeMediaFile). */
export interface MediaRewrite {
  rulesObj: Rules;
  rules: string;
}

/**
 * What media.csv needs without reading every record: nothing when `indexUnchanged` and it is
 * there (its counts are those `prev` recorded, or read from it when it changed since); the rows
 * of `appended` (the sets whose rows the manifest took as appended rows, above every set listed)
 * appended to it (Destination.extendAtomic) when it is
 * still as `prev` records and was judged against the same rules, the bytes a full write gives.
 * Otherwise the rules to write it whole with (writeMediaFile).
 */
export async function updateMediaFile(
  dest: Destination,
  indexUnchanged: boolean,
  prev?: MediaFingerprint,
  appended?: readonly LocalSet[],
): Promise<{ done: MediaWritten } | { rewrite: MediaRewrite }> {
  const kept = indexUnchanged ? await dest.stat(MEDIA_KEY) : null;
  if (kept !== null) {
    // Kept as it is. Its counts were recorded when we wrote it: the file (tens of MB at 100,000 sets) is
    // read to count them only when it changed since.
    if (prev && asWritten(kept, prev.file)) {
      return { done: { problems: prev.problems, unprobed: prev.unprobed, written: null } };
    }
    return { done: { ...(await countProblems(dest.read(MEDIA_KEY))), written: null } };
  }
  const rulesObj = rulesOfCollectionJson(await dest.readText('collection.json'));
  const rules = JSON.stringify(rulesObj);
  if (appended && prev && prev.rules === rules && dest.extendAtomic) {
    const counts = { problems: prev.problems, unprobed: prev.unprobed };
    const tail = datasetCsvText(MEDIA_COLUMNS, rowsOf(appended, rulesObj, counts), false);
    const info = await dest.extendAtomic(MEDIA_KEY, prev.file, tail);
    if (info) return { done: { ...counts, written: { file: fingerprintOf(info), rules, ...counts } } };
  }
  return { rewrite: { rulesObj, rules } };
}

/** Writes media.csv whole from every record (`sets`, in set-id order), judged against the rules updateMediaFile read. */
export async function writeMediaFile(dest: Destination, sets: LocalSets, { rulesObj, rules }: MediaRewrite): Promise<MediaWritten> {
  const counts = { problems: 0, unprobed: 0 };
  const info = await dest.writeAtomic(MEDIA_KEY, csvBody(sets, (set) => rowsOf([set], rulesObj, counts), MEDIA_COLUMNS));
  return { ...counts, written: { file: fingerprintOf(info), rules, ...counts } };
}

/**
 * Rows of media.csv (as written above) whose last two cells are not both `ok`. Counted chunk by
 * chunk as the file is read (tens of MB at 100,000 sets): the event loop (the app's window) gets
 * a turn between chunks instead of waiting for one read and split of the whole file.
 */
async function countProblems(chunks: AsyncIterable<Buffer>): Promise<MediaCounts> {
  const counts: MediaCounts = { problems: 0, unprobed: 0 };
  const decoder = new StringDecoder('utf8');
  let header = true;
  let rest = '';
  const count = (line: string): void => {
    if (header) {
      header = false;
      return;
    }
    line = line.replace(/\r$/, '');
    if (line !== '' && !line.endsWith(',ok,ok')) counts.problems++;
    if (/,unprobed,[^,]*$/.test(line)) counts.unprobed++;
  };
  for await (const chunk of chunks) {
    const lines = (rest + decoder.write(chunk)).split('\n');
    rest = lines.pop()!;
    for (const line of lines) count(line);
  }
  count(rest + decoder.end());
  return counts;
}

/**
 * media.csv as a stage's dataset file (stages/stage.ts): the end of a sync loops over these, naming
 * none. `checkedSets`: the sets whose files the stage recorded a result for in this sync. A result
 * for a set whose rows the file holds already (a check made later than the download: put off, or
 * of a file adopted) means a rewrite; results of the sets an appending end adds go into their rows.
 */
export function mediaCsvWriter(checkedSets: () => ReadonlySet<number>): DatasetFileWriter<MediaRewrite> {
  return {
    key: MEDIA_KEY,
    async update(dest: Destination, state: RunState, indexUnchanged: boolean, appended: readonly LocalSet[] | undefined) {
      const added = new Set(appended?.map((s) => s.id));
      const rowsOutdated = [...checkedSets()].some((id) => !added.has(id));
      const r = await updateMediaFile(dest, indexUnchanged && !rowsOutdated, mediaFingerprintOf(state.head), rowsOutdated ? undefined : appended);
      if ('rewrite' in r) return r;
      return { done: recorded(state, r.done) };
    },
    async writeWhole(dest: Destination, state: RunState, sets: LocalSets, plan: MediaRewrite) {
      return recorded(state, await writeMediaFile(dest, sets, plan));
    },
  };
}

/** Keeps what was written in the head (the next sync's append or no-op needs it); the summary's counts. */
function recorded(state: RunState, m: MediaWritten): { mediaProblems: number; mediaUnprobed: number } {
  if (m.written) state.store.recordStageFile(MEDIA_STAGE, m.written);
  return { mediaProblems: m.problems, mediaUnprobed: m.unprobed };
}

/**
 * media.csv as the head records it (the media stage's entry of EngineState.stageFiles), when it
 * reads as one: counts that are not whole numbers (a hand-edited state) are never said, the file
 * is counted instead.
 */
export function mediaFingerprintOf(head: Pick<EngineState, 'stageFiles'>): MediaFingerprint | undefined {
  const f = head.stageFiles?.[MEDIA_STAGE] as Partial<MediaFingerprint> | undefined;
  if (!f || !Number.isInteger(f.problems) || !Number.isInteger(f.unprobed) || typeof f.rules !== 'string' || typeof f.file !== 'object' || f.file === null) return undefined;
  return f as MediaFingerprint;
}

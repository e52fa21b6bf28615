// The end of a sync: manifest.csv and SHA256SUMS list exactly the verified files present
// (docs/contracts.md §1), written only when something changed, and then for what changed; then
// the stages' files (media.csv: stages/stage.ts DatasetFileWriter), participants.csv and
// croissant.json, which follow them.
import type { Destination } from './destination/destination';
import { appendManifestAndSums, indexUnchanged, writeManifestAndSums } from './dataset';
import { manifestAsWritten, updateResearchFiles, writeResearchFiles, type AppendedSets } from './research-files';
import type { RunState } from './run-state';
import type { IndexFingerprint } from './state/head';
import { indexListsStore } from './index-mark';
import { paced } from './loop-turns';
import { SharedPass } from './shared-pass';
import type { LocalSet } from './state/records';
import type { DatasetFileWriter } from './stages/stage';
import type { SyncSummary } from '../../src-shared/sync-events';

/** The files an appending end extends, in the order it extends them (manifest.csv and SHA256SUMS together; the stages' files, then croissant.json, which names them all). */
const EXTENDED_FIRST = ['manifest.csv', 'SHA256SUMS', 'participants.csv'] as const;
const EXTENDED_LAST = ['croissant.json'] as const;

/**
 * Called when the service lists sets after the watermark: this sync's end will likely extend
 * the files, so a destination that can begins copying them now (Destination.warmExtensions), while
 * the folder is checked, instead of at the end (issue #21: a sync bringing 10 new sets at a
 * million files spent most of its end copying 776 MB).
 */
export function warmIndexExtension(dest: Destination, stageFiles: readonly DatasetFileWriter[]): void {
  dest.warmExtensions?.([...EXTENDED_FIRST, ...stageFiles.map((f) => f.key), ...EXTENDED_LAST]);
}

/**
 * Leaves manifest.csv and SHA256SUMS alone when no set record changed since we last wrote them
 * and both are still as written (the bytes would be identical: what makes a no-op sync cheap).
 * When the run only added sets above every set listed, their rows are appended (appendRows), and
 * the other files follow the same way. Whatever must be written whole is written from one read of
 * every record (SharedPass: a page of sets at a time, memory flat in the set count), all files at
 * once. `whole`: every file is written whole, as after the end found entries to drop (disk-check.ts):
 * the files were just written, so nothing they hold may be kept or extended.
 */
export async function writeDatasetIndex(dest: Destination, state: RunState, stageFiles: readonly DatasetFileWriter[], whole = false): Promise<Partial<SyncSummary>> {
  const store = state.store;
  store.flush();
  const index = state.head.index;
  const unchanged = !whole && index !== undefined && indexListsStore(index, store) && (await indexUnchanged(dest, index));
  let appended: AppendedSets | undefined;
  if (!unchanged && !whole) {
    const rows = await appendRows(dest, state);
    if (rows) {
      appended = rows;
      recordIndex(state, rows.written);
    }
  }
  const rewriteIndex = !unchanged && appended === undefined;
  // The stages' files (media.csv): kept with the manifest, or extended by the same sets' rows; else
  // written whole below. participants.csv and croissant.json, which name the manifest: likewise. At
  // once: after a sync that added sets, they extend files by copies inside the kernel (the tables'
  // hashes are continued from their recorded states: table-hash.ts).
  const [updates, research] = await Promise.all([
    Promise.all(stageFiles.map((f) => f.update(dest, state, unchanged, appended?.sets))),
    updateResearchFiles(dest, state, rewriteIndex, appended),
  ]);

  // One pass over the records for every file written whole. Each reader is taken before the pass starts.
  const pass = new SharedPass<LocalSet>(() => paced(store.all()));
  const indexReaders = rewriteIndex ? { manifest: pass.reader(), sums: pass.reader() } : undefined;
  const stageReaders = updates.map((u) => ('rewrite' in u ? pass.reader() : undefined));
  const researchReaders = research ? { count: pass.reader(), participants: pass.reader(), croissant: pass.reader() } : undefined;

  // A writer that fails ends the pass for the others (they would wait for its reader).
  const failing = <T>(p: Promise<T>): Promise<T> =>
    p.catch((e: unknown) => {
      pass.abort(e);
      throw e;
    });
  const indexWritten = indexReaders ? failing(writeManifestAndSums(dest, indexReaders.manifest, indexReaders.sums)) : undefined;
  indexWritten?.catch(() => undefined); // awaited below, with the others
  const stagesWritten = Promise.all(updates.map((u, i) => ('rewrite' in u ? failing(stageFiles[i]!.writeWhole(dest, state, stageReaders[i]!, u.rewrite)) : Promise.resolve(u.done))));
  const researchWritten =
    research && researchReaders
      ? failing(writeResearchFiles(dest, state, research, researchReaders, indexWritten ? indexWritten.then((w) => w.manifest) : manifestAsWritten(dest)))
      : undefined;
  const [written, stagesDone] = await Promise.all([indexWritten, stagesWritten, researchWritten]);
  if (written) recordIndex(state, written.fingerprint);
  return Object.assign({}, ...stagesDone) as Partial<SyncSummary>;
}

function recordIndex(state: RunState, written: IndexFingerprint): void {
  state.store.recordIndex(written);
}

/** The rows of the sets this run put, appended when the index listed every other record (RunState.indexAtStart); null: write whole. */
async function appendRows(dest: Destination, state: RunState): Promise<AppendedSets | null> {
  const base = state.indexAtStart;
  // A set that left in this run still has rows in the files: appending would keep them.
  const { changedSets, removedSets } = state.store;
  if (!base || changedSets.size === 0 || removedSets.size > 0) return null;
  const ids = [...changedSets].sort((a, b) => a - b);
  // With what the stages found of their files, as the whole pass reads them (SetStore.all).
  const sets = state.store.readWithResults(ids);
  const appended = await appendManifestAndSums(dest, base, sets);
  return appended && { base, sets, manifestTail: appended.manifestTail, written: appended.fingerprint };
}

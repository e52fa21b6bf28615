// The end of a sync: manifest.csv and SHA256SUMS list exactly the verified files present
// (docs/contracts.md §1), written only when something changed, and then for what changed.
import type { Destination } from './destination/destination';
import { appendManifestAndSums, indexUnchanged, writeManifestAndSums } from './dataset';
import { writeResearchFiles, type AppendedSets } from './research-files';
import type { RunState } from './run-state';
import type { IndexFingerprint } from './state';
import { indexListsStore, storeMark } from './index-mark';
import { paced } from './loop-turns';
import { writeMediaFile } from './media/media-file';

/**
 * Leaves manifest.csv and SHA256SUMS alone when no set record changed since we last wrote them
 * and both are still as written (the bytes would be identical: what makes a no-op sync cheap).
 * When the run only added sets above every set listed, their rows are appended (appendRows);
 * otherwise both are rewritten, records read a page of sets at a time (memory stays flat in the set
 * count). Entries of files found damaged and not healed have been dropped before (disk-check.ts).
 */
export async function writeDatasetIndex(dest: Destination, state: RunState): Promise<{ mediaProblems: number; mediaUnprobed: number }> {
  const store = state.store;
  store.flush();
  const index = state.head.index;
  const unchanged = index !== undefined && indexListsStore(index, store) && (await indexUnchanged(dest, index));
  let appended: AppendedSets | undefined;
  if (!unchanged) {
    const rows = await appendRows(dest, state);
    appended = rows ?? undefined;
    const written = rows?.written ?? (await writeManifestAndSums(dest, () => paced(store.all())));
    state.head.index = { ...written, changes: storeMark(store) };
    state.touch();
  }
  // media.csv: rewritten with the manifest, or extended by the same sets' rows
  const media = await writeMediaFile(dest, () => paced(store.all()), unchanged, state.head.media, appended?.sets);
  if (media.written) {
    state.head.media = media.written;
    state.touch();
  }
  await writeResearchFiles(dest, state, appended); // participants.csv and croissant.json, after the manifest they name
  return { mediaProblems: media.problems, mediaUnprobed: media.unprobed };
}

/** The rows of the sets this run put, appended when the index listed every other record (RunState.indexAtStart); null: write whole. */
async function appendRows(dest: Destination, state: RunState): Promise<(AppendedSets & { written: IndexFingerprint }) | null> {
  const base = state.indexAtStart;
  // A set that left in this run still has rows in the files: appending would keep them.
  if (!base || state.changedSets.size === 0 || state.removedSets.size > 0) return null;
  const ids = [...state.changedSets].sort((a, b) => a - b);
  const sets = ids.map((id) => state.store.get(id)).filter((s) => s !== undefined);
  const written = await appendManifestAndSums(dest, base, sets);
  return written && { base, sets, written };
}

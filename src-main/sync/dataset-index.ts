// The end of a sync: manifest.csv and SHA256SUMS list exactly the verified files present
// (docs/contracts.md §1), rewritten only when something changed.
import type { Destination } from './destination/destination';
import { indexUnchanged, writeManifestAndSums } from './dataset';
import type { RunState } from './run-state';

/**
 * Rewrites manifest.csv and SHA256SUMS — unless no set record changed since we last wrote them
 * (the store's change counter is the same) and both are still as written: then the rewrite would produce
 * identical bytes, and skipping it is what makes a no-op sync cheap. Records are read one set at
 * a time, so memory stays flat in the set count. Entries of files found damaged and not healed
 * have been dropped before (disk-check.ts).
 */
export async function writeDatasetIndex(dest: Destination, state: RunState): Promise<void> {
  const store = state.store;
  store.flush();
  const index = state.head.index;
  if (index && index.changes === store.changeCount && (await indexUnchanged(dest, index))) return;
  const written = await writeManifestAndSums(dest, () => store.all());
  state.head.index = { ...written, changes: store.changeCount };
  state.touch();
}

// What a repair changes before it syncs (inside the sync, under its lock): the set records stop
// vouching for the files verify found missing or changed, and their sets are queued. A changed
// file may keep its size and mtime, so the disk check would still trust it; without its entry it
// is adopted by hash only if its bytes are right, else downloaded and replaced by rename.
import { isPositiveId } from './names';
import type { RunState } from './run-state';

/** sets/<id>/<name> -> id; null for anything else (a hand-edited manifest line). */
function setIdOf(rel: string): number | null {
  const m = /^sets\/(\d+)\/[^/]+$/.exec(rel);
  const id = m ? Number(m[1]) : NaN;
  return isPositiveId(id) ? id : null;
}

/** Drops the entries of `files` (paths relative to DEST); returns the ids of their sets, to sync. */
export function untrustFiles(state: RunState, files: readonly string[]): number[] {
  const ids = new Set<number>();
  for (const rel of files) {
    const id = setIdOf(rel);
    if (id === null) continue;
    ids.add(id);
    if (!state.store.get(id)) continue;
    state.store.dropFiles(id, [rel], 'lost');
    state.store.addPending(id);
  }
  return [...ids].sort((a, b) => a - b);
}

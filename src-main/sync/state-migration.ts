// Earlier state layouts, migrated once:
// - version 1 held every file entry and set status in state.json; version 2 keeps them in the
//   set store. Migrated on the first sync after the upgrade (legacyRecords, imported by run-state.ts).
// - the head itself was state.json until it moved into state.db (run-state.ts imports it).
// - the set store was sets.jsonl and the history history.jsonl; both now live in state.db,
//   imported when the database is first opened (state/legacy-logs.ts: it reads files, which
//   only the state folder's own modules do).
import { isPositiveId } from './names';
import { emptyLocalSet, type LocalSet } from './state/records';
import type { LegacyState } from './state/head';

/** The set records a version 1 state.json held. */
export function legacyRecords(legacy: LegacyState): LocalSet[] {
  const byId = new Map<number, LocalSet>();
  const local = (id: number) => {
    let rec = byId.get(id);
    if (!rec) byId.set(id, (rec = emptyLocalSet(id)));
    return rec;
  };
  for (const [id, s] of Object.entries(legacy.sets)) {
    const rec = local(Number(id));
    Object.assign(rec, { updatedAt: s.updatedAt, isGold: s.isGold, complete: s.complete });
    if (s.leftAccepted !== undefined) rec.leftAccepted = s.leftAccepted;
  }
  for (const [rel, entry] of Object.entries(legacy.files)) local(entry.setId).files[rel] = entry;
  return [...byId.values()].filter((rec) => isPositiveId(rec.id));
}

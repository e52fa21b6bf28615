// Files of one set that would collide on disk or in the engine's records: the same file id twice,
// two files for one slot (set_1_slot_01.mp4 and set_1_slot_001.mp4, or .mp4 and .MP4), or names
// equal once case and Unicode form are ignored (one file on a case-insensitive disk). Downloading
// such a set would make two transfers share a final path, or download one file and delete it as
// "replaced" on every sync; the set fails instead, naming both files, and nothing of it changes.
import type { FileRecord, SetRecord } from '../api/types';

/** The name as a case-insensitive, normalising file system (APFS, NTFS) would compare it. */
function foldedName(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

function shown(f: FileRecord): string {
  const name = typeof f.filename === 'string' ? f.filename : String(f.filename);
  return `${JSON.stringify(name.length > 80 ? name.slice(0, 80) + '…' : name)} (file ${f.id})`;
}

/** Null when the set's files are distinct, else the reason naming the colliding files (at most 3 pairs). */
export function findCollisions(set: SetRecord): string | null {
  const byId = new Map<number, FileRecord>();
  const bySlot = new Map<number, FileRecord>();
  const byName = new Map<string, FileRecord>();
  const found: string[] = [];
  for (const f of set.files) {
    const sameId = byId.get(f.id);
    const sameSlot = bySlot.get(f.slot_index);
    const sameName = byName.get(foldedName(f.filename));
    if (sameId) found.push(`${shown(sameId)} and ${shown(f)} have the same file id`);
    else if (sameSlot) found.push(`${shown(sameSlot)} and ${shown(f)} are both for slot ${f.slot_index}`);
    else if (sameName) found.push(`${shown(sameName)} and ${shown(f)} name the same file once case and Unicode form are ignored`);
    byId.set(f.id, sameId ?? f);
    bySlot.set(f.slot_index, sameSlot ?? f);
    byName.set(foldedName(f.filename), sameName ?? f);
  }
  if (found.length === 0) return null;
  const more = found.length > 3 ? ` and ${found.length - 3} more` : '';
  return `set ${set.id} lists colliding files: ${found.slice(0, 3).join('; ')}${more}`;
}

// Server-given names and ids become path parts only after these checks (docs/contracts.md §4).

/** The only accepted form of files[].filename: set_<set_id>_slot_<nn>.<ext>, ext 1-8 alphanumerics. */
const FILENAME = /^set_([1-9][0-9]{0,15})_slot_([0-9]{2,4})\.([A-Za-z0-9]{1,8})$/;

export function isPositiveId(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
}

/** Returns null when the name is acceptable for this set and slot, else the reason. */
export function checkFilename(filename: string, setId: number, slotIndex: number): string | null {
  const m = FILENAME.exec(filename);
  const shown = JSON.stringify(filename.length > 80 ? filename.slice(0, 80) + '…' : filename);
  if (!m) return `file name ${shown} does not have the form set_<set_id>_slot_<nn>.<ext>`;
  if (Number(m[1]) !== setId) return `file name ${shown} names set ${m[1]}, not its own set ${setId}`;
  if (Number(m[2]) !== slotIndex) return `file name ${shown} names slot ${Number(m[2])}, but the file is for slot ${slotIndex}`;
  return null;
}

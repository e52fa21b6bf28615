// What a verify found, in the same words wherever it is shown (the report's headline, the
// dataset card, the history): an extra file is not damage, but it is said, never hidden.

export interface VerifyCounts {
  missing: number;
  changed: number;
  extra: number;
}

const files = (n: number) => (n === 1 ? '1 extra file' : `${n} extra files`);

/** `ok`: nothing listed is missing or changed. `words`: e.g. "problems found: 1 missing, 1 changed". */
export function verifyVerdict(c: VerifyCounts): { ok: boolean; words: string } {
  if (c.missing + c.changed > 0) {
    const parts = [c.missing > 0 && `${c.missing} missing`, c.changed > 0 && `${c.changed} changed`, c.extra > 0 && `${c.extra} extra`].filter(Boolean);
    return { ok: false, words: `problems found: ${parts.join(', ')}` };
  }
  return { ok: true, words: c.extra > 0 ? `intact; ${files(c.extra)} not in the manifest` : 'intact' };
}

// Checks a parsed answer against its zod schema (src-shared/*-api.ts). A mismatch is named by
// the path of the offending field, e.g. "sets[3].files[0].sha256: must be 64 lowercase hex
// characters", so a user (or the service's developers) can find it in the answer.
import type { z } from 'zod';

/** `root` and a zod issue path as one field name: `sets[3].files[0].sha256`; the root alone for []. */
export function fieldPath(root: string, path: readonly PropertyKey[]): string {
  let out = root;
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out === '' ? 'answer' : out;
}

/** What is wrong with `value`, naming the first offending field; null when it passes. */
export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

export function check<S extends z.ZodType>(schema: S, value: unknown, root = ''): Checked<z.output<S>> {
  const r = schema.safeParse(value);
  if (r.success) return { ok: true, value: r.data };
  const [first, ...more] = r.error.issues;
  const problem = `${fieldPath(root, first!.path)}: ${first!.message}`;
  return { ok: false, problem: more.length > 0 ? `${problem} (and ${more.length} more)` : problem };
}

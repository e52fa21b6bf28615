// Lists that nearly always arrive in order (a set's files by slot, its participants by role) are
// sorted only when they are not: a sort, and the copy that keeps its input as it was, allocate
// every time (issue 21: the end of a first sync did both for every set, 62 MB at 10,000 sets).

/** `list` itself when it is in `compare`'s order already, else a sorted copy. Not to be changed by the caller. */
export function inOrder<T>(list: readonly T[], compare: (a: T, b: T) => number): readonly T[] {
  for (let i = 1; i < list.length; i++) if (compare(list[i - 1]!, list[i]!) > 0) return [...list].sort(compare);
  return list;
}

// The part of a collection a dataset holds (docs/contracts.md §1, §2 `--slots`, `--groups`): the
// files of some slot keys, the sets with a participant in some quota groups. Remembered in the
// engine's head state per destination until given again; null = everything (`all`).
import type { CollectionDetail, FileRecord, SetRecord } from '../../src-shared/delivery-api';

export interface Subset {
  /** Slot keys whose files the dataset holds; null: every slot. */
  slots: string[] | null;
  /** quota_group.value of at least one participant; null: every set. */
  groups: string[] | null;
}

export const WHOLE: Subset = { slots: null, groups: null };

/** As remembered in the head state (anything malformed counts as absent: the whole collection). */
export function parseSubset(v: unknown): Subset | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const list = (x: unknown): string[] | null => (Array.isArray(x) && x.every((s) => typeof s === 'string') ? [...(x as string[])].sort() : null);
  const o = v as Record<string, unknown>;
  return { slots: list(o.slots), groups: list(o.groups) };
}

function sameList(a: string[] | null, b: string[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export function sameSubset(a: Subset, b: Subset): boolean {
  return sameList(a.slots, b.slots) && sameList(a.groups, b.groups);
}

/**
 * The subset of this sync: what the options say (undefined: as remembered; null: everything),
 * else what was remembered. Lists are kept sorted and without repeats, so a choice given again
 * in another order is no change.
 */
export function resolveSubset(remembered: Subset | undefined, given: { slots?: string[] | null; groups?: string[] | null }): Subset {
  const norm = (l: string[] | null): string[] | null => (l === null ? null : [...new Set(l)].sort());
  const base = remembered ?? WHOLE;
  return {
    slots: given.slots === undefined ? base.slots : norm(given.slots),
    groups: given.groups === undefined ? base.groups : norm(given.groups),
  };
}

export function isWhole(s: Subset): boolean {
  return s.slots === null && s.groups === null;
}

/** Whether the set belongs to the subset (its group): one participant in a chosen quota group is enough. */
export function setInSubset(set: Pick<SetRecord, 'participants'>, subset: Subset): boolean {
  if (subset.groups === null) return true;
  const groups = subset.groups;
  return set.participants.some((p) => groups.includes(p.quota_group.value));
}

export function fileInSubset(file: Pick<FileRecord, 'slot_key'>, subset: Subset): boolean {
  return subset.slots === null || subset.slots.includes(file.slot_key);
}

/**
 * Names of the subset the collection does not have (a typo would silently empty the dataset):
 * a sentence for the configuration error, or null when every name is known.
 */
export function unknownNames(subset: Subset, collection: CollectionDetail): string | null {
  const problems: string[] = [];
  const slotKeys = collection.spec.slots.map((s) => s.key);
  const badSlots = (subset.slots ?? []).filter((k) => !slotKeys.includes(k));
  if (badSlots.length > 0) problems.push(`no slot ${badSlots.map((k) => JSON.stringify(k)).join(', ')} (its slot keys: ${slotKeys.join(', ')})`);
  const values = collection.quotas.map((q) => q.value);
  const badGroups = (subset.groups ?? []).filter((g) => !values.includes(g));
  if (badGroups.length > 0) problems.push(`no quota group ${badGroups.map((g) => JSON.stringify(g)).join(', ')} (its quota groups: ${values.join(', ')})`);
  return problems.length === 0 ? null : `Collection ${collection.id} has ${problems.join(' and ')}.`;
}

/**
 * Takes this sync's subset into the head state (the lock is held). A changed subset clears the
 * watermark (EngineStore.setSubset): a widened one must list the sets walked before (their files
 * now wanted), a narrowed one must find the local sets and files now out; and should this walk
 * not complete, the next sync walks from the start again. Returns the subset.
 */
export function adoptSubset(store: { readonly head: { subset?: Subset }; setSubset(subset: Subset | undefined): void }, given: { slots?: string[] | null; groups?: string[] | null }): { subset: Subset; changed: boolean } {
  const before = store.head.subset ?? WHOLE;
  const subset = resolveSubset(store.head.subset, given);
  const changed = !sameSubset(before, subset);
  if (changed) store.setSubset(isWhole(subset) ? undefined : subset);
  return { subset, changed };
}

/** Whether this sync's options change the subset remembered in `head` (then the walk starts from the beginning). */
export function changesSubset(head: { subset?: Subset } | null, given: { slots?: string[] | null; groups?: string[] | null }): boolean {
  const before = head?.subset ?? WHOLE;
  return !sameSubset(before, resolveSubset(head?.subset, given));
}

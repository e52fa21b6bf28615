// participants.csv (docs/contracts.md §1): one row per participant of the sets in the dataset,
// with the demographics the collection asked for, the quota group and whether a consent is on
// record. Built from the set records the engine keeps (state/set-store.ts ParticipantEntry), so
// no set.json is read back at the end of a sync.
import { hashedAsWritten, ResumableSha256, type TableHash } from './table-hash';
import { csvBody } from './csv-body';
import type { Participant, SetRecord } from '../../src-shared/delivery-api';
import { datasetCsvText } from './dataset-csv';
import { inOrder } from './in-order';
import type { Destination, ObjectInfo } from './destination/destination';
import type { RunState } from './run-state';
import type { LocalSet, LocalSets, ParticipantEntry } from './state/records';

export const PARTICIPANTS_COLUMNS = ['set_id', 'role', 'participant_ref', 'age', 'gender', 'ethnicity', 'skin_tone', 'quota_group', 'quota_value', 'consent'] as const;

function byRole(a: { role: string }, b: { role: string }): number {
  return a.role < b.role ? -1 : a.role > b.role ? 1 : 0;
}

/**
 * The participants in role order, sorted only when they are not (the service lists them so, and
 * records keep them so: in-order.ts). Not to be changed by the caller.
 */
export function inRoleOrder<P extends { role: string }>(list: readonly P[]): readonly P[] {
  return inOrder(list, byRole);
}

/** What participants.csv needs of one participant; a field the record does not carry stays absent (an empty cell). */
function entryOf(p: Participant): ParticipantEntry {
  return {
    role: p.role,
    ref: p.participant_ref,
    ...(p.age !== undefined ? { age: p.age } : {}),
    ...(p.gender !== undefined ? { gender: p.gender } : {}),
    ...(p.ethnicity !== undefined ? { ethnicity: p.ethnicity } : {}),
    ...(p.skin_tone !== undefined ? { skinTone: p.skin_tone } : {}),
    group: p.quota_group.group,
    value: p.quota_group.value,
    label: p.quota_group.label,
    signed: p.consent !== null,
  };
}

/** The set's participants in role order, as the set record keeps them. */
export function participantEntries(set: SetRecord): ParticipantEntry[] {
  return inRoleOrder(set.participants).map(entryOf);
}

/**
 * Keeps the set's participants with its record (called when a set is planned). The store writes
 * the record only when they changed, so an unchanged set leaves it (and a no-op sync) alone.
 */
export function recordParticipants(state: RunState, set: SetRecord): void {
  state.store.setParticipants(set.id, participantEntries(set));
}

/** The sets listed in participants.csv: those with files in the dataset (manifest.csv lists them). */
export function inDataset(set: LocalSet): boolean {
  return Object.keys(set.files).length > 0;
}

/** A set with at least one participant without a signed consent (a null consent). */
export function consentMissing(set: LocalSet): boolean {
  return (set.participants ?? []).some((p) => !p.signed);
}

function cells(setId: number, p: ParticipantEntry): string[] {
  const opt = (v: string | number | null | undefined) => (v === undefined || v === null ? '' : String(v));
  return [String(setId), p.role, p.ref, opt(p.age), opt(p.gender), opt(p.ethnicity), opt(p.skinTone), p.group, p.value, p.signed ? 'signed' : 'missing'];
}

/** The rows of `sets` (those in the dataset), in role order within each set. */
function* rowsOf(sets: Iterable<LocalSet>): Generator<string[]> {
  for (const set of sets) {
    if (!inDataset(set)) continue;
    for (const p of inRoleOrder(set.participants ?? [])) yield cells(set.id, p);
  }
}

/** The file's bytes, streamed with the manifest's rules (dataset-csv.ts: RFC 4180, formula-safe cells). */
function participantsBody(sets: LocalSets): AsyncIterable<Buffer> {
  return csvBody(sets, (set) => rowsOf([set]), PARTICIPANTS_COLUMNS);
}

export interface ParticipantsWritten {
  info: ObjectInfo;
  hash: TableHash;
}

/** Writes participants.csv atomically from `sets` (in set-id order: SetStore.all); returns what was written and its SHA-256 (croissant.json names it), with the state that continues it. */
export async function writeParticipantsCsv(dest: Destination, sets: LocalSets): Promise<ParticipantsWritten> {
  const hash = await ResumableSha256.start();
  const info = await dest.writeAtomic('participants.csv', hashedAsWritten(participantsBody(sets), hash));
  return { info, hash: hash.finish() };
}

/**
 * Appends the rows of `sets` to participants.csv as `expect` describes it (Destination.extendAtomic:
 * clone, append, rename), which gives the bytes writeParticipantsCsv would write when every set
 * of `sets` is above every set listed (the caller's rule: the manifest took them the same way).
 * Returns the new file and the bytes appended (its hash is continued over them: table-hash.ts);
 * null when the destination cannot or the file is no longer as recorded: the caller writes it whole.
 */
export async function appendParticipantsCsv(dest: Destination, expect: { size: number; stamp: string }, sets: readonly LocalSet[]): Promise<{ info: ObjectInfo; tail: string } | null> {
  if (!dest.extendAtomic) return null;
  const tail = datasetCsvText(PARTICIPANTS_COLUMNS, rowsOf(sets), false);
  const info = await dest.extendAtomic('participants.csv', expect, tail);
  return info && { info, tail };
}

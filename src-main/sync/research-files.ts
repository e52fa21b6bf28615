// The dataset files for research tools, written at the end of a sync after manifest.csv and
// SHA256SUMS (dataset-index.ts): participants.csv (participants-file.ts) and croissant.json
// (croissant-file.ts), both from the set records the engine keeps, through the destination.
// Like the index they are rewritten only when something changed: a no-op sync stats three
// files and reads collection.json, nothing more. When the manifest took the run's sets as appended
// rows, both files are extended the same way (their new bytes cost what changed, not every record).
import { createHash } from 'node:crypto';
import { appendCroissant, collectionFacts, type CollectionFacts, writeCroissant, type CroissantWritten, type TableFile } from './croissant-file';
import type { Destination, ObjectInfo } from './destination/destination';
import { paced } from './loop-turns';
import { appendParticipantsCsv, consentMissing, inDataset, writeParticipantsCsv } from './participants-file';
import type { RunState } from './run-state';
import type { FileFingerprint, IndexFingerprint, ResearchFingerprint } from './state';
import type { LocalSet } from './state/set-store';

/** Bumped when the bytes written for the same records change, so older files are rewritten once (2: the tables' FileObjects last). */
const RESEARCH_FORMAT = 2;

/** The sets the manifest took as appended rows this run, and the index they were appended to (dataset-index.ts). */
export interface AppendedSets {
  base: IndexFingerprint;
  sets: readonly LocalSet[];
}

function fingerprintOf(info: ObjectInfo): FileFingerprint {
  return { size: info.size, stamp: info.stamp };
}

function same(info: ObjectInfo | FileFingerprint | null, fp: FileFingerprint | undefined): boolean {
  return info !== null && fp !== undefined && info.size === fp.size && info.stamp === fp.stamp;
}

async function tableOf(dest: Destination, key: string, size: number): Promise<TableFile> {
  const hash = createHash('sha256');
  for await (const chunk of dest.read(key)) hash.update(chunk);
  return { size, sha256: hash.digest('hex') };
}

/**
 * Writes participants.csv and croissant.json unless manifest.csv (rewritten whenever a set record
 * changed), collection.json's facts and both files are as they were when last written; records
 * the count of sets lacking a consent in the head state (state.head.research), which the summary reports.
 * `appended`: the manifest was extended by these sets' rows; when both files are still what was
 * written for the manifest before, they are extended too.
 */
export async function writeResearchFiles(dest: Destination, state: RunState, appended?: AppendedSets): Promise<void> {
  const manifest = await dest.stat('manifest.csv');
  if (manifest === null) return; // the index was not written: nothing to describe
  const facts = collectionFacts(await dest.readText('collection.json').catch(() => null));
  const collection = JSON.stringify(facts);
  const prev = state.head.research;
  const current = prev?.format === RESEARCH_FORMAT && prev.collection === collection;
  const participantsNow = current ? await dest.stat('participants.csv') : null;
  const croissantNow = current ? await dest.stat('croissant.json') : null;
  if (current && same(participantsNow, prev.participants) && same(croissantNow, prev.croissant)) {
    if (same(manifest, prev.manifest)) return;
    if (appended && same(appended.base.manifest, prev.manifest) && (await extendResearchFiles(dest, state, facts, manifest, prev, appended.sets))) return;
  }
  const store = state.store;
  let consentMissingSets = 0;
  // Every record is read three times below, each with event-loop turns (loop-turns.ts: the app's window stays live).
  for await (const set of paced(store.all())) {
    if (!inDataset(set)) continue;
    // A record kept before participants were: its set is fetched again next sync (one request, nothing downloaded).
    if (!set.participants && set.leftAccepted === undefined) state.addPending(set.id);
    if (consentMissing(set)) consentMissingSets++;
  }
  const participants = await writeParticipantsCsv(dest, paced(store.all()));
  const manifestTable = await tableOf(dest, 'manifest.csv', manifest.size);
  const croissant = await writeCroissant(dest, facts, manifestTable, { size: participants.info.size, sha256: participants.sha256 }, paced(store.all()));
  record(state, facts, manifest, participants.info, croissant, consentMissingSets);
}

/** Appends the rows and FileObjects of `sets` (participants-file.ts, croissant-file.ts); false when either must be written whole. */
async function extendResearchFiles(dest: Destination, state: RunState, facts: CollectionFacts, manifest: ObjectInfo, prev: ResearchFingerprint, sets: readonly LocalSet[]): Promise<boolean> {
  if (prev.croissantClosing === undefined) return false;
  let consentMissingSets = prev.consentMissingSets;
  for (const set of sets) {
    if (!inDataset(set)) continue;
    if (!set.participants && set.leftAccepted === undefined) state.addPending(set.id);
    if (consentMissing(set)) consentMissingSets++;
  }
  const participants = await appendParticipantsCsv(dest, prev.participants, sets);
  if (!participants) return false;
  // The tables' hashes are read from the files (a SHA-256 state cannot be kept between syncs): one read of each, no record touched.
  const manifestTable = await tableOf(dest, 'manifest.csv', manifest.size);
  const participantsTable = await tableOf(dest, 'participants.csv', participants.size);
  const croissant = await appendCroissant(dest, prev.croissant, prev.croissantClosing, manifestTable, participantsTable, sets);
  if (!croissant) return false;
  record(state, facts, manifest, participants, croissant, consentMissingSets);
  return true;
}

function record(state: RunState, facts: CollectionFacts, manifest: ObjectInfo, participants: ObjectInfo, croissant: CroissantWritten, consentMissingSets: number): void {
  state.head.research = {
    format: RESEARCH_FORMAT,
    manifest: fingerprintOf(manifest),
    participants: fingerprintOf(participants),
    croissant: fingerprintOf(croissant.info),
    croissantClosing: croissant.closingBytes,
    collection: JSON.stringify(facts),
    consentMissingSets,
  };
  state.touch();
}

// The dataset files for research tools, written at the end of a sync after manifest.csv and
// SHA256SUMS (dataset-index.ts): participants.csv (participants-file.ts) and croissant.json
// (croissant-file.ts), both from the set records the engine keeps, through the destination.
// Like the index they are rewritten only when something changed: a no-op sync stats three
// files and reads collection.json, nothing more. When the manifest took the run's sets as appended
// rows, both files are extended the same way (their new bytes cost what changed, not every record).
import { appendCroissant, collectionFacts, type CollectionFacts, writeCroissant, type CroissantWritten, type TableFile } from './croissant-file';
import type { Destination, ObjectInfo } from './destination/destination';
import { asWritten, fingerprintOf } from './dataset';
import { appendParticipantsCsv, consentMissing, inDataset, writeParticipantsCsv } from './participants-file';
import type { RunState } from './run-state';
import type { IndexFingerprint, ResearchFingerprint } from './state/head';
import type { LocalSet, LocalSets } from './state/records';
import { continuedHash, ResumableSha256, type TableHash } from './table-hash';

/** Bumped when the bytes written for the same records change, so older files are rewritten once (2: the tables' FileObjects last). */
const RESEARCH_FORMAT = 2;

/** The sets the manifest took as appended rows this run, the index they were appended to and the index after, and the manifest's appended bytes (dataset-index.ts). */
export interface AppendedSets {
  base: IndexFingerprint;
  sets: readonly LocalSet[];
  written: IndexFingerprint;
  manifestTail: string;
}

/** A table's hash read from the destination: every byte of it (when no recorded state continues it). */
async function hashOfTable(dest: Destination, key: string): Promise<TableHash> {
  const hash = await ResumableSha256.start();
  for await (const chunk of dest.read(key)) hash.update(chunk);
  return hash.finish();
}

/** A table's hash after `appended` was appended: the recorded state continued over those bytes, or (no state, or one that does not load) the table read whole. */
async function hashAfterAppend(dest: Destination, key: string, recorded: string | undefined, appended: string): Promise<TableHash> {
  return (await continuedHash(recorded, appended)) ?? hashOfTable(dest, key);
}

function tableFile(size: number, hash: TableHash): TableFile {
  return { size, sha256: hash.sha256 };
}

/** participants.csv and croissant.json must be written whole, for this collection (writeResearchFiles). */
export interface ResearchRewrite {
  facts: CollectionFacts;
}

/**
 * What participants.csv and croissant.json need without reading every record: nothing when
 * manifest.csv (rewritten whenever a set record changed), collection.json's facts and both files
 * are as they were when last written; when the manifest was extended by `appended`'s rows and both
 * files are still what was written for the manifest before, they are extended too. Otherwise the
 * facts to write them whole with; `manifestRewritten`: the manifest is being written whole in
 * the same pass (so they are too), null when there is no manifest to describe.
 */
export async function updateResearchFiles(dest: Destination, state: RunState, manifestRewritten: boolean, appended?: AppendedSets): Promise<ResearchRewrite | null> {
  const manifest = manifestRewritten ? null : await dest.stat('manifest.csv');
  if (!manifestRewritten && manifest === null) return null; // the index was not written: nothing to describe
  const facts = collectionFacts(await dest.readText('collection.json').catch(() => null));
  if (manifest === null) return { facts };
  const collection = JSON.stringify(facts);
  const prev = state.head.research;
  const current = prev?.format === RESEARCH_FORMAT && prev.collection === collection;
  const participantsNow = current ? await dest.stat('participants.csv') : null;
  const croissantNow = current ? await dest.stat('croissant.json') : null;
  if (current && asWritten(participantsNow, prev.participants) && asWritten(croissantNow, prev.croissant)) {
    if (asWritten(manifest, prev.manifest)) return null;
    if (appended && asWritten(appended.base.manifest, prev.manifest) && (await extendResearchFiles(dest, state, facts, manifest, prev, appended))) return null;
  }
  return { facts };
}

/** The three readers writeResearchFiles takes of the end's shared pass (every record, in set-id order). */
export interface ResearchReaders {
  count: LocalSets;
  participants: LocalSets;
  croissant: LocalSets;
}

/**
 * Writes participants.csv and croissant.json whole, and records the count of sets lacking a
 * consent in the head state (state.head.research), which the summary reports. `manifest`: the
 * manifest they describe, with its SHA-256 (written in the same pass; or read back from the
 * destination when it was not rewritten). croissant.json's closing part names both tables'
 * hashes, so it is written last, once both are known.
 */
export async function writeResearchFiles(
  dest: Destination,
  state: RunState,
  { facts }: ResearchRewrite,
  readers: ResearchReaders,
  manifest: Promise<{ info: ObjectInfo; hash: TableHash }>,
): Promise<void> {
  const counted = countConsentMissing(state, readers.count);
  const participants = writeParticipantsCsv(dest, readers.participants);
  const tables = Promise.all([manifest, participants]).then(([m, p]) => ({
    manifest: tableFile(m.info.size, m.hash),
    participants: tableFile(p.info.size, p.hash),
  }));
  // Settled with the others below; this keeps a failure of one from being reported unhandled meanwhile.
  tables.catch(() => undefined);
  const [consentMissingSets, participantsWritten, croissant, manifestWritten] = await Promise.all([counted, participants, writeCroissant(dest, facts, tables, readers.croissant), manifest]);
  record(state, facts, manifestWritten, participantsWritten, croissant, consentMissingSets);
}

/** The manifest as it is at the destination, and its SHA-256 read from it (when it was not rewritten in the pass that writes the research files). */
export async function manifestAsWritten(dest: Destination): Promise<{ info: ObjectInfo; hash: TableHash }> {
  const info = await dest.stat('manifest.csv');
  if (info === null) throw new Error('manifest.csv is gone');
  return { info, hash: await hashOfTable(dest, 'manifest.csv') };
}

/** Sets lacking a consent; a record kept before participants were puts its set back to pending (fetched again next sync: one request, nothing downloaded). */
async function countConsentMissing(state: RunState, sets: LocalSets): Promise<number> {
  let missing = 0;
  for await (const set of sets) {
    if (!inDataset(set)) continue;
    if (!set.participants && set.leftAccepted === undefined) state.store.addPending(set.id);
    if (consentMissing(set)) missing++;
  }
  return missing;
}

/** Appends the rows and FileObjects of the appended sets (participants-file.ts, croissant-file.ts); false when either must be written whole. */
async function extendResearchFiles(dest: Destination, state: RunState, facts: CollectionFacts, manifest: ObjectInfo, prev: ResearchFingerprint, appended: AppendedSets): Promise<boolean> {
  if (prev.croissantClosing === undefined) return false;
  let consentMissingSets = prev.consentMissingSets;
  for (const set of appended.sets) {
    if (!inDataset(set)) continue;
    if (!set.participants && set.leftAccepted === undefined) state.store.addPending(set.id);
    if (consentMissing(set)) consentMissingSets++;
  }
  // The tables' hashes continue the states recorded with them over the appended bytes (table-hash.ts):
  // no table is read, no record touched. A state older than this, or one that does not load, has
  // the table read whole, once; the manifest's while participants.csv is extended.
  // The manifest is the one the append wrote (not replaced since): else it is read whole.
  const manifestState = asWritten(manifest, appended.written.manifest) ? prev.manifestHash : undefined;
  const manifestHashed = hashAfterAppend(dest, 'manifest.csv', manifestState, appended.manifestTail);
  manifestHashed.catch(() => undefined); // awaited below unless participants.csv fails first
  const participants = await appendParticipantsCsv(dest, prev.participants, appended.sets);
  if (!participants) return false;
  const [manifestHash, participantsHash] = await Promise.all([manifestHashed, hashAfterAppend(dest, 'participants.csv', prev.participantsHash, participants.tail)]);
  const croissant = await appendCroissant(dest, prev.croissant, prev.croissantClosing, tableFile(manifest.size, manifestHash), tableFile(participants.info.size, participantsHash), appended.sets);
  if (!croissant) return false;
  record(state, facts, { info: manifest, hash: manifestHash }, { info: participants.info, hash: participantsHash }, croissant, consentMissingSets);
  return true;
}

/** A table as written, with its hash. */
interface TableWritten {
  info: ObjectInfo;
  hash: TableHash;
}

function record(state: RunState, facts: CollectionFacts, manifest: TableWritten, participants: TableWritten, croissant: CroissantWritten, consentMissingSets: number): void {
  state.store.recordResearch({
    format: RESEARCH_FORMAT,
    manifest: fingerprintOf(manifest.info),
    manifestHash: manifest.hash.state,
    participants: fingerprintOf(participants.info),
    participantsHash: participants.hash.state,
    croissant: fingerprintOf(croissant.info),
    croissantClosing: croissant.closingBytes,
    collection: JSON.stringify(facts),
    consentMissingSets,
  });
}

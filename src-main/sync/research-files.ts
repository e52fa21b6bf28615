// The dataset files for research tools, written at the end of a sync after manifest.csv and
// SHA256SUMS (dataset-index.ts): participants.csv (participants-file.ts) and croissant.json
// (croissant-file.ts), both from the set records the engine keeps, through the destination.
// Like the index they are rewritten only when something changed: a no-op sync stats three
// files and reads collection.json, nothing more.
import { createHash } from 'node:crypto';
import { collectionFacts, writeCroissant } from './croissant-file';
import type { Destination, ObjectInfo } from './destination/destination';
import { paced } from './loop-turns';
import { consentMissing, inDataset, writeParticipantsCsv } from './participants-file';
import type { RunState } from './run-state';
import type { FileFingerprint } from './state';

/** Bumped when the bytes written for the same records change, so older files are rewritten once. */
const RESEARCH_FORMAT = 1;

function fingerprintOf(info: ObjectInfo): FileFingerprint {
  return { size: info.size, stamp: info.stamp };
}

function same(info: ObjectInfo | null, fp: FileFingerprint | undefined): boolean {
  return info !== null && fp !== undefined && info.size === fp.size && info.stamp === fp.stamp;
}

async function sha256Of(dest: Destination, key: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of dest.read(key)) hash.update(chunk);
  return hash.digest('hex');
}

/**
 * Writes participants.csv and croissant.json unless manifest.csv (rewritten whenever a set record
 * changed), collection.json's facts and both files are as they were when last written; records
 * the count of sets lacking a consent in the head state (state.head.research), which the summary reports.
 */
export async function writeResearchFiles(dest: Destination, state: RunState): Promise<void> {
  const manifest = await dest.stat('manifest.csv');
  if (manifest === null) return; // the index was not written: nothing to describe
  const facts = collectionFacts(await dest.readText('collection.json').catch(() => null));
  const collection = JSON.stringify(facts);
  const prev = state.head.research;
  if (
    prev?.format === RESEARCH_FORMAT &&
    prev.collection === collection &&
    same(manifest, prev.manifest) &&
    same(await dest.stat('participants.csv'), prev.participants) &&
    same(await dest.stat('croissant.json'), prev.croissant)
  ) {
    return;
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
  const manifestTable = { size: manifest.size, sha256: await sha256Of(dest, 'manifest.csv') };
  const croissant = await writeCroissant(dest, facts, manifestTable, { size: participants.info.size, sha256: participants.sha256 }, paced(store.all()));
  state.head.research = {
    format: RESEARCH_FORMAT,
    manifest: fingerprintOf(manifest),
    participants: fingerprintOf(participants.info),
    croissant: fingerprintOf(croissant),
    collection,
    consentMissingSets,
  };
  state.touch();
}

// The engine's head state, the object '.dataset-sync/state.json' of the destination (for a
// folder DEST/.dataset-sync/state.json, as before the seam): the service and collection the
// dataset belongs to, watermark, sets to retry and the fingerprint of the dataset index. It is
// kept in the destination itself because a bucket must carry its binding (another machine reads
// it). What is known of each set (status, verified files with size and stamp, so up-to-date
// checks hash nothing) lives in the state database (state.db) in the state folder and is read
// one set at a time (state/set-store.ts). Written atomically (Destination.writeAtomic).
import { randomUUID } from 'node:crypto';
import type { Destination } from './destination/destination';
import { readLocalGeneration, writeLocalGeneration } from './state/local-generation';
import type { FileEntry } from './state/set-store';
import { parseSubset, type Subset } from './subset';

export type { FileEntry } from './state/set-store';

/** The head's key in the destination. */
export const STATE_KEY = '.dataset-sync/state.json';

export interface FileFingerprint {
  size: number;
  /** ObjectInfo.stamp as written (a folder's mtime in ms). A state written before the seam has mtimeMs instead: the index is then written once more. */
  stamp: string;
}

/** media.csv as last written (state.head.media): a sync that only adds sets appends their rows when the file is still this (media/media-file.ts). */
export interface MediaFingerprint {
  file: FileFingerprint;
  /** The collection's media_rules the rows were judged against (JSON). */
  rules: string;
  /** The file's counts (summary.mediaProblems, summary.mediaUnprobed). */
  problems: number;
  unprobed: number;
}

export interface IndexFingerprint {
  manifest: FileFingerprint;
  sums: FileFingerprint;
  /** How manifest.csv was written (dataset.ts MANIFEST_FORMAT); absent before version 2. */
  manifestFormat?: number;
  /** The highest set id with rows in the files: rows of sets above it may be appended (dataset.ts). Absent before. */
  lastSetId?: number;
}

export interface ResearchFingerprint {
  /** How the files were written (research-files.ts RESEARCH_FORMAT). */
  format: number;
  /** manifest.csv when they were written: a rewritten manifest means set records changed. */
  manifest: FileFingerprint;
  /** The manifest's SHA-256 as a state an append continues (table-hash.ts); absent in a state written before it. */
  manifestHash?: string;
  participants: FileFingerprint;
  /** participants.csv's, likewise. */
  participantsHash?: string;
  croissant: FileFingerprint;
  /** Bytes of croissant.json after its last file's FileObject (croissant-file.ts appendCroissant replaces them). */
  croissantClosing?: number;
  /** collection.json's title and spec as croissant.json describes them. */
  collection: string;
  /** Sets of the dataset with a participant whose consent is null (the summary's consentMissingSets). */
  consentMissingSets: number;
}

export interface EngineState {
  version: 2;
  /**
   * The service the folder belongs to (base URL as validateBaseUrl normalises it). null in a
   * state written before it was recorded: the next sync records its own (see folder-binding.ts).
   */
  baseUrl: string | null;
  collectionId: number | null;
  watermark: string | null;
  /** Sets to fetch again on the next sync, whatever the watermark says. */
  pendingSets: number[];
  /**
   * manifest.csv and SHA256SUMS as this engine last wrote them, and the set store's change
   * counter then (SetStore.changeCount: it grows with every write of set records). While all
   * three still match, a sync that changed nothing skips rewriting them (the bytes would be
   * identical). A state written with sets.jsonl recorded `logBytes` instead: the index is then
   * written once more.
   */
  index?: IndexFingerprint & { changes: number };
  /** The subset the dataset holds (subset.ts); absent: the whole collection. */
  subset?: Subset;
  /** participants.csv and croissant.json as last written, and the sets lacking a consent then (research-files.ts). */
  research?: ResearchFingerprint;
  /** media.csv as last written, its rules and counts (media/media-file.ts). */
  media?: MediaFingerprint;
  /** New at every save of the head of a destination shared across machines (a bucket; state/local-generation.ts); absent for folders. */
  generation?: string;
}

/** What a version 1 state held in one file: every file entry and set status (migrated to the set store on load). */
export interface LegacyState {
  files: Record<string, FileEntry>;
  sets: Record<string, { updatedAt: string; isGold: boolean; complete: boolean; leftAccepted?: string }>;
}

export function emptyState(): EngineState {
  return { version: 2, baseUrl: null, collectionId: null, watermark: null, pendingSets: [] };
}

/**
 * The state as it is now, read without the lock (another sync may be writing it): a guess,
 * checked once the lock is held (run.ts asks for page 1 with its watermark before the lock is
 * taken). A folder answers synchronously (Destination.peekText): the first asynchronous read of
 * a process costs ~10 ms of thread-pool start-up, a round trip's share the guess is there to
 * save; a destination without peekText is read with readText. Null when there is none or it
 * cannot be read.
 */
export function peekState(dest: Destination): EngineState | null | Promise<EngineState | null> {
  if (dest.peekText) {
    try {
      const text = dest.peekText(STATE_KEY);
      return text === null ? null : parseState(text).state;
    } catch {
      return null;
    }
  }
  return dest.readText(STATE_KEY).then(
    (text) => (text === null ? null : parseState(text).state),
    () => null,
  );
}

export async function loadState(dest: Destination): Promise<{ state: EngineState; legacy?: LegacyState }> {
  const text = await dest.readText(STATE_KEY);
  return text === null ? { state: emptyState() } : parseState(text);
}

function parseState(text: string): { state: EngineState; legacy?: LegacyState } {
  // A corrupt state costs re-checking files (they are adopted by hash), never data.
  let s: Record<string, unknown>;
  try {
    s = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { state: emptyState() };
  }
  const state: EngineState = {
    version: 2,
    baseUrl: typeof s.baseUrl === 'string' ? s.baseUrl : null,
    collectionId: typeof s.collectionId === 'number' ? s.collectionId : null,
    watermark: typeof s.watermark === 'string' ? s.watermark : null,
    pendingSets: Array.isArray(s.pendingSets) ? s.pendingSets.filter((x): x is number => Number.isInteger(x)) : [],
    ...(typeof s.generation === 'string' ? { generation: s.generation } : {}),
  };
  const subset = parseSubset(s.subset);
  if (subset) state.subset = subset;
  if (s.version === 2) {
    const index = s.index as EngineState['index'];
    if (index && typeof index.changes === 'number') state.index = index;
    const research = s.research as EngineState['research'];
    if (research && typeof research.consentMissingSets === 'number') {
      // A hash state that is not a string is dropped: the table is then hashed whole, once.
      if (typeof research.manifestHash !== 'string') delete research.manifestHash;
      if (typeof research.participantsHash !== 'string') delete research.participantsHash;
      state.research = research;
    }
    const media = s.media as EngineState['media'];
    // Counts said in the summary as they are (media/media-file.ts): whole numbers or no fingerprint.
    if (media && Number.isInteger(media.problems) && Number.isInteger(media.unprobed) && typeof media.rules === 'string') state.media = media;
    return { state };
  }
  if (s.version === 1) {
    const files = (s.files ?? {}) as LegacyState['files'];
    const sets = (s.sets ?? {}) as LegacyState['sets'];
    return { state, legacy: { files, sets } };
  }
  return { state: emptyState() };
}

export async function saveState(dest: Destination, state: EngineState): Promise<void> {
  if (dest.sharedAcrossMachines) state.generation = randomUUID();
  await dest.writeAtomic(STATE_KEY, JSON.stringify(state, null, 2) + '\n');
  if (state.generation !== undefined) writeLocalGeneration(dest.stateDir, state.generation);
}

/**
 * Whether this machine's set records match the head it read (state/local-generation.ts): false
 * for a destination shared across machines (Destination.sharedAcrossMachines: a bucket) last
 * synced from another machine, or never from this one. Then the watermark is
 * not trusted for this sync.
 */
export function recordsMatchHead(dest: Destination, head: Pick<EngineState, 'watermark' | 'generation'>): boolean {
  if (!dest.sharedAcrossMachines || head.watermark === null) return true;
  return readLocalGeneration(dest.stateDir) === (head.generation ?? null);
}

// The engine's head state: the service and collection the dataset belongs to, the watermark, the
// sets to retry, the subset, the fingerprints of the dataset files as last written, and (for a
// destination shared across machines) the generation of the records. It lives in state.db beside
// the set records (head-table.ts), written in the same transactions, so a head never vouches for a
// record not committed. A destination shared across machines (a bucket) also carries a copy of it,
// `.dataset-sync/state.json` in the destination (published-head.ts), so another machine knows whom
// the dataset belongs to and whether its own records match. state.json at a folder's
// `.dataset-sync/` is the head as earlier versions kept it, imported once (published-head.ts).
import type { FileEntry } from './records';
import { parseSubset, type Subset } from '../subset';

export interface FileFingerprint {
  size: number;
  /** ObjectInfo.stamp as written (a folder's mtime in ms). A state written before the seam has mtimeMs instead: the index is then written once more. */
  stamp: string;
}

/** media.csv as last written (the media stage's entry of EngineState.stageFiles): a sync that only adds sets appends their rows when the file is still this (media/media-file.ts). */
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
  /**
   * The stages' dataset files as last written, by stage name (media.csv: the media stage's
   * MediaFingerprint, media/media-file.ts): opaque to everything but the stage.
   */
  stageFiles?: Record<string, unknown>;
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

export function parseHead(text: string): { state: EngineState; legacy?: LegacyState } {
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
    const stageFiles = s.stageFiles;
    if (stageFiles && typeof stageFiles === 'object' && !Array.isArray(stageFiles)) state.stageFiles = { ...(stageFiles as Record<string, unknown>) };
    // Kept by versions before the stages (the media check's file): the media stage's entry now.
    if (s.media !== undefined && state.stageFiles?.media === undefined) state.stageFiles = { ...state.stageFiles, media: s.media };
    return { state };
  }
  if (s.version === 1) {
    const files = (s.files ?? {}) as LegacyState['files'];
    const sets = (s.sets ?? {}) as LegacyState['sets'];
    return { state, legacy: { files, sets } };
  }
  return { state: emptyState() };
}


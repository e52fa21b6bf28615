// The engine's head state under DEST/.dataset-sync/state.json: the service and collection the
// folder belongs to, watermark, sets to retry and the fingerprint of the dataset index. What is known of each set (status, verified
// files with size and mtime, so up-to-date checks hash nothing) lives in sets.jsonl and is read
// one set at a time (set-store.ts). Written atomically.
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeJsonAtomic } from './atomic';
import { scratchDir, stateDir } from './layout';
import type { FileEntry } from './set-store';

export type { FileEntry } from './set-store';

export interface FileFingerprint {
  size: number;
  mtimeMs: number;
}

export interface IndexFingerprint {
  manifest: FileFingerprint;
  sums: FileFingerprint;
  /** How manifest.csv was written (dataset.ts MANIFEST_FORMAT); absent before version 2. */
  manifestFormat?: number;
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
   * manifest.csv and SHA256SUMS as this engine last wrote them, and the size of sets.jsonl
   * then (it grows with every change of a set record). While all three still match, a sync
   * that changed nothing skips rewriting them (the bytes would be identical).
   */
  index?: IndexFingerprint & { logBytes: number };
}

/** What a version 1 state held in one file: every file entry and set status (migrated to sets.jsonl on load). */
export interface LegacyState {
  files: Record<string, FileEntry>;
  sets: Record<string, { updatedAt: string; isGold: boolean; complete: boolean; leftAccepted?: string }>;
}

export function emptyState(): EngineState {
  return { version: 2, baseUrl: null, collectionId: null, watermark: null, pendingSets: [] };
}

function statePath(dest: string): string {
  return path.join(stateDir(dest), 'state.json');
}

/**
 * The state as it is on disk now, read without the folder's lock (another sync may be writing
 * it): a guess, checked once the lock is held (run.ts asks for page 1 with its watermark before
 * the lock is taken). Synchronous: the first asynchronous read of a process costs ~10 ms of
 * thread-pool start-up, a round trip's share the guess is there to save. Null when there is
 * none or it cannot be read.
 */
export function peekState(dest: string): EngineState | null {
  try {
    return parseState(readFileSync(statePath(dest), 'utf8')).state;
  } catch {
    return null;
  }
}

export async function loadState(dest: string): Promise<{ state: EngineState; legacy?: LegacyState }> {
  let text: string;
  try {
    text = await fs.readFile(statePath(dest), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { state: emptyState() };
    throw e;
  }
  return parseState(text);
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
  };
  if (s.version === 2) {
    const index = s.index as EngineState['index'];
    if (index && typeof index.logBytes === 'number') state.index = index;
    return { state };
  }
  if (s.version === 1) {
    const files = (s.files ?? {}) as LegacyState['files'];
    const sets = (s.sets ?? {}) as LegacyState['sets'];
    return { state, legacy: { files, sets } };
  }
  return { state: emptyState() };
}

export async function saveState(dest: string, state: EngineState): Promise<void> {
  await writeJsonAtomic(statePath(dest), state, 0o644, scratchDir(dest));
}

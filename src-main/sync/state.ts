// The engine's state of record under DEST/.dataset-sync/state.json: watermark, verified files
// (with size and mtime at verification, so up-to-date checks hash nothing), set status and
// which consents are stored. Written atomically.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from './atomic';
import { scratchDir, stateDir } from './layout';

export interface FileEntry {
  setId: number;
  fileId: number;
  slotIndex: number;
  slotKey: string;
  sizeBytes: number;
  sha256: string;
  mtimeMs: number;
  participantRefs: string;
  isGold: boolean;
  acceptedAt: string | null;
  updatedAt: string;
  downloadedAt: string;
}

export interface SetEntry {
  updatedAt: string;
  isGold: boolean;
  complete: boolean;
  /** Set when the set was last seen with a status other than accepted. */
  leftAccepted?: string;
}

export interface EngineState {
  version: 1;
  collectionId: number | null;
  watermark: string | null;
  /** Keyed by path relative to DEST ("sets/12/set_12_slot_01.mp4"). */
  files: Record<string, FileEntry>;
  sets: Record<string, SetEntry>;
  /** Sets to fetch again on the next sync, whatever the watermark says. */
  pendingSets: number[];
  /** Consent ids stored under the consents folder. */
  consents: Record<string, true>;
}

export function emptyState(): EngineState {
  return { version: 1, collectionId: null, watermark: null, files: {}, sets: {}, pendingSets: [], consents: {} };
}

function statePath(dest: string): string {
  return path.join(stateDir(dest), 'state.json');
}

export async function loadState(dest: string): Promise<EngineState> {
  let text: string;
  try {
    text = await fs.readFile(statePath(dest), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return emptyState();
    throw e;
  }
  try {
    const s = JSON.parse(text) as Partial<EngineState>;
    if (s.version !== 1) return emptyState();
    return { ...emptyState(), ...s } as EngineState;
  } catch {
    // A corrupt state costs re-checking files (they are adopted by hash), never data.
    return emptyState();
  }
}

export async function saveState(dest: string, state: EngineState): Promise<void> {
  // Compact JSON: with 40,000 files the indented form was about twice the size and time, and
  // the state is saved every few seconds during a sync.
  await writeFileAtomic(statePath(dest), JSON.stringify(state), 0o644, scratchDir(dest));
}

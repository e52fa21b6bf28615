// The engine's state of record under DEST/.dataset-sync/state.json: watermark, verified files
// (with size and mtime at verification, so up-to-date checks hash nothing), set status and
// which consents are stored. Written atomically.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
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
  /**
   * manifest.csv and SHA256SUMS as this engine last wrote them, for the then `files`. Cleared
   * whenever `files` changes; while set and both files still match (size, mtime), a sync that
   * changed nothing skips rewriting them (the bytes would be identical). Absent in older states.
   */
  index?: IndexFingerprint;
}

export interface FileFingerprint {
  size: number;
  mtimeMs: number;
}

export interface IndexFingerprint {
  manifest: FileFingerprint;
  sums: FileFingerprint;
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

/** Files serialised per write: bounds the strings held at once (one JSON text of 40,000 entries is ~17 MB). */
const SAVE_BATCH = 2000;

/**
 * Writes state.json atomically (temp file + rename), streamed in batches of file entries so
 * memory stays flat with the file count. Compact JSON: the state is saved every few seconds.
 * Entries added while the save awaits a write may or may not be included: the next save has them.
 */
export async function saveState(dest: string, state: EngineState): Promise<void> {
  const target = statePath(dest);
  const tmp = path.join(scratchDir(dest), `.state.json.${randomBytes(4).toString('hex')}.tmp`);
  const { files, ...rest } = state;
  const keys = Object.keys(files);
  const head = JSON.stringify(rest);
  const fh = await fs.open(tmp, 'wx', 0o644);
  try {
    // `files` goes last; `rest` is a plain object, so its JSON ends with "}".
    await fh.write(head === '{}' ? '{"files":{' : `${head.slice(0, -1)},"files":{`);
    let first = true;
    for (let i = 0; i < keys.length; i += SAVE_BATCH) {
      let chunk = '';
      const end = Math.min(keys.length, i + SAVE_BATCH);
      for (let j = i; j < end; j++) {
        const k = keys[j]!;
        const entry = files[k];
        if (entry === undefined) continue;
        chunk += `${first ? '' : ','}${JSON.stringify(k)}:${JSON.stringify(entry)}`;
        first = false;
      }
      await fh.write(chunk);
    }
    await fh.write('}}');
    await fh.close();
    await fs.rename(tmp, target);
  } catch (e) {
    await fh.close().catch(() => undefined);
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
}

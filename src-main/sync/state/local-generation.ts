// Which save of a bucket's head this machine's state matches. A bucket's head (its binding,
// watermark, pending sets) lives in the bucket, where every machine reads it; the set records
// live on the machine that synced (Destination.stateDir). Each save gives the head a new
// generation, and the machine that saved it notes that generation beside its records. A machine
// whose note differs (it never synced this bucket, or another machine synced it since) does
// not trust the watermark for one sync: it walks every accepted set, and the files already in
// the bucket are adopted through their sha256 metadata (Destination.verifiedCopy), never
// downloaded again. A folder's state and head are the same files, so they always match.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const FILE = 'head-generation';

export function readLocalGeneration(stateDir: string): string | null {
  try {
    return readFileSync(path.join(stateDir, FILE), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

export function writeLocalGeneration(stateDir: string, generation: string): void {
  writeFileSync(path.join(stateDir, FILE), `${generation}\n`, { mode: 0o644 });
}

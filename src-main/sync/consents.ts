// Consent records hold real names: they live apart from the dataset in CONSENTS/<id>.json,
// folder 0700, files 0600 (DESIGN 1.1).
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { ConsentRecord } from '../../src-shared/delivery-api';
import { tempFileWriterPid, writeJsonAtomicSync } from './atomic';
import { processAlive } from './lock';

export async function ensureConsentsDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode is masked by the umask and ignored for an existing folder: set it explicitly.
  await fs.chmod(dir, 0o700);
  await removeOrphanTemps(dir);
}

/**
 * A sync killed while writing a record leaves its temp file (0600, but holding real names)
 * beside the records. Temp names carry the writer's pid; those of processes no longer running
 * are removed. A live writer's temp (another sync sharing this consents folder) is left alone.
 */
async function removeOrphanTemps(dir: string): Promise<void> {
  for (const name of await fs.readdir(dir)) {
    const pid = tempFileWriterPid(name);
    if (pid !== null && pid !== process.pid && !processAlive(pid)) await fs.rm(path.join(dir, name), { force: true });
  }
}

/**
 * Synchronous (a record is a few hundred bytes; thousands per sync in bench scenario 2). The
 * temp file gets 0600 by fchmod before the rename, so the record is never readable by others.
 */
export async function writeConsent(dir: string, consentId: number, record: ConsentRecord): Promise<void> {
  writeJsonAtomicSync(path.join(dir, `${consentId}.json`), record, 0o600);
}

export async function consentStored(dir: string, consentId: number): Promise<boolean> {
  return existsSync(path.join(dir, `${consentId}.json`));
}

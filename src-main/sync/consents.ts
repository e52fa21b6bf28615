// Consent records hold real names: they live apart from the dataset in CONSENTS/<id>.json,
// folder 0700, files 0600 (DESIGN 1.1).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ConsentRecord } from '../api/types';
import { writeJsonAtomic } from './atomic';

export async function ensureConsentsDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode is masked by the umask and ignored for an existing folder: set it explicitly.
  await fs.chmod(dir, 0o700);
}

export async function writeConsent(dir: string, consentId: number, record: ConsentRecord): Promise<void> {
  await writeJsonAtomic(path.join(dir, `${consentId}.json`), record, 0o600);
  await fs.chmod(path.join(dir, `${consentId}.json`), 0o600);
}

export async function consentStored(dir: string, consentId: number): Promise<boolean> {
  try {
    await fs.access(path.join(dir, `${consentId}.json`));
    return true;
  } catch {
    return false;
  }
}

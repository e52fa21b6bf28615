// Atomic file writes: a temp file, then rename, so readers see the old or the new content,
// never a half-written one. `tmpDir` (same file system as the target) keeps the temp files of
// dataset writes under DEST/.dataset-sync/tmp, so a crash mid-write leaves no debris in sets/.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export async function writeFileAtomic(target: string, data: string | Buffer, mode = 0o644, tmpDir = path.dirname(target)): Promise<void> {
  const tmp = path.join(tmpDir, `.${path.basename(target)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await fs.writeFile(tmp, data, { mode });
    await fs.rename(tmp, target);
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
}

export async function writeJsonAtomic(target: string, value: unknown, mode = 0o644, tmpDir?: string): Promise<void> {
  await writeFileAtomic(target, JSON.stringify(value, null, 2) + '\n', mode, tmpDir);
}

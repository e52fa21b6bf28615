// Atomic file writes: a temp file next to the target, then rename, so readers see the old or
// the new content, never a half-written one.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export async function writeFileAtomic(target: string, data: string | Buffer, mode = 0o644): Promise<void> {
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await fs.writeFile(tmp, data, { mode });
    await fs.rename(tmp, target);
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
}

export async function writeJsonAtomic(target: string, value: unknown, mode = 0o644): Promise<void> {
  await writeFileAtomic(target, JSON.stringify(value, null, 2) + '\n', mode);
}

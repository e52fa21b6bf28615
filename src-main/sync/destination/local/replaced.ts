// The previous versions of the dataset's index files, kept until the next sync (issue #21).
//
// A sync extends manifest.csv, SHA256SUMS, media.csv, participants.csv and croissant.json by a
// copy, the new rows and a rename over the old file (atomic-writes.ts extendAtomicFile): 776 MB of
// old files at a million files. The rename drops the old file's last link, so the file system
// frees its blocks right then; on a file system mounted with `discard` (this machine's ext4) the
// rename waits while the device discards them, and the state's next fsync waits behind it (68
// discards of 776 MB, 0.3 s, and an fsync of 0.31-0.36 s in one such sync: bench/NOTES.md). A
// hard link to the old file, made just before the rename, keeps its blocks; the next sync unlinks
// it while it checks the folder, where the discards cost little of its time.
//
// Between syncs the old versions take their size on the disk again (DEST/.dataset-sync/replaced).
// A sync never needs more room at once than before: its own copies wait for the removal of the
// versions the last sync kept (LocalFolder.extendAtomic and warmExtensions).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { replacedDir } from '../../layout';
import { tempPathFor } from './atomic';
import { ensureRealDir } from './safe-dirs';

/**
 * Links the file at `target` into `dir` under a name of its own. Best effort: a file system
 * without hard links, a full inode table or a target gone meanwhile only means the rename frees
 * the old blocks itself, as it always did.
 */
export async function keepReplacedVersion(target: string, dir: string): Promise<void> {
  // link(2) never follows a symbolic link at `target` on Linux; and what is linked here is only
  // ever unlinked again, never read or written.
  await fs.link(target, tempPathFor(target, dir)).catch(() => undefined);
}

/**
 * Unlinks what DEST/.dataset-sync/replaced holds now (the versions earlier syncs kept); call with
 * the lock held. Names listed once, so a version this sync keeps meanwhile stays for the next one.
 * Never rejects: what cannot be removed now is tried again by the next sync.
 */
export async function removeReplacedVersions(dest: string): Promise<void> {
  try {
    // Checked first, as tmp/ is (safe-dirs.ts resetScratchDir): a link in its place is never followed.
    const dir = await ensureRealDir(dest, path.relative(dest, replacedDir(dest)));
    for (const name of await fs.readdir(dir)) await fs.rm(path.join(dir, name), { force: true, recursive: true }).catch(() => undefined);
  } catch {
    // Not a real folder, or unreadable: the next prepare refuses it with the reason.
  }
}

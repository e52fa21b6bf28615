// The consents folder (LocalFolder in its consents role): consent records hold real names, so
// they live apart from the dataset in CONSENTS/<id>.json, folder 0700 when the sync creates it,
// files 0600 (docs/contracts.md §1). A consents folder given as a link is resolved once, at the start; its
// real path is what the sync uses and reports.
import { constants, promises as fs, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { tempFileWriterPid } from './atomic';
import { processAlive } from './lock';

/** Links followed while resolving one path before giving up (as the kernel's ELOOP limit). */
const MAX_LINK_HOPS = 40;

/**
 * Real path of `p`, links resolved; a path not there yet resolves through its nearest existing
 * parent, and a link whose target is not there yet resolves to that target (the rest is what
 * the sync will create).
 */
function realPathOf(p: string): string {
  const rest: string[] = [];
  let current = path.resolve(p);
  for (let hops = 0; ; ) {
    try {
      return path.join(realpathSync(current), ...[...rest].reverse());
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      if (lstatSync(current, { throwIfNoEntry: false })?.isSymbolicLink() && hops++ < MAX_LINK_HOPS) {
        current = path.resolve(path.dirname(current), readlinkSync(current));
        continue;
      }
      const parent = path.dirname(current);
      if (parent === current) throw e;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * The consents folder the sync will use: its real path, resolved once at the start, so a folder
 * given as (or defaulting to) a link is followed here, shown to the user as where the records
 * really go, and never followed again. Throws when that real path is the dataset folder or
 * inside it (consents hold real names).
 */
export function resolveConsentsDir(dir: string, dest: string | null): string {
  let real: string;
  let realDest: string | null;
  try {
    real = realPathOf(dir);
    // A dataset in a bucket has no local path this folder could be inside.
    realDest = dest === null ? null : realPathOf(dest);
  } catch (e) {
    // e.g. ENOTDIR (a part of the path is a file) or ELOOP (links pointing at each other)
    throw new Error(`Cannot use the consents folder ${path.resolve(dir)}: ${(e as Error).message}`);
  }
  if (realDest !== null && (real === realDest || real.startsWith(realDest + path.sep))) {
    const shown = real === path.resolve(dir) ? real : `${path.resolve(dir)} (really ${real})`;
    throw new Error(`The consents folder ${shown} must not be inside the dataset folder ${realDest}: consents hold real names.`);
  }
  return real;
}

// O_NOFOLLOW: the folder resolved at the start must still be a real folder, not a link planted since.
const OPEN_DIR_NOFOLLOW = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Creates the consents folder (`dir` as resolveConsentsDir returned it) when missing, 0700.
 * The mode of a folder that was already there is never changed (the user chose it, or it is
 * the target of a link the user made); when other users can list it, the returned warning says
 * so. Records themselves are always 0600.
 */
export async function ensureConsentsDir(dir: string): Promise<{ warning?: string; empty: boolean }> {
  const created = (await fs.mkdir(dir, { recursive: true, mode: 0o700 })) !== undefined;
  let fh;
  try {
    fh = await fs.open(dir, OPEN_DIR_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new Error(`${dir} became a symbolic link after the sync resolved it; refusing to follow it (remove the link and sync again)`);
    }
    throw e;
  }
  let warning: string | undefined;
  try {
    // mkdir's mode is masked by the umask: set it on the folder we made, through the handle (no link followed).
    if (created) await fh.chmod(0o700);
    else {
      const mode = (await fh.stat()).mode & 0o777;
      if (mode & 0o077) {
        warning = `The consents folder ${dir} can be listed by other users (mode ${mode.toString(8)}); its records are readable only by you. Run chmod 700 on it to hide their ids too.`;
      }
    }
  } finally {
    await fh.close();
  }
  const held = await removeOrphanTemps(dir);
  return { ...(warning ? { warning } : {}), empty: held === 0 };
}

/**
 * A sync killed while writing a record leaves its temp file (0600, but holding real names)
 * beside the records. Temp names carry the writer's pid; those of processes no longer running
 * are removed. A live writer's temp (another sync sharing this consents folder) is left alone.
 * Returns how many names are not temp files (records, or anything else the user put there).
 */
async function removeOrphanTemps(dir: string): Promise<number> {
  let others = 0;
  // Read a few hundred names per call (not readdir's one array of every record): between reads
  // the event loop (the app's window) gets its turns, however many consents there are.
  for await (const entry of await fs.opendir(dir, { bufferSize: 256 })) {
    const name = entry.name;
    const pid = tempFileWriterPid(name);
    if (pid === null) others++;
    else if (pid !== process.pid && !processAlive(pid)) await fs.rm(path.join(dir, name), { force: true });
  }
  return others;
}

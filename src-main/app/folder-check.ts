// A folder the user chooses for a collection is checked at once, before anything in it is shown
// as this collection's: a folder that holds another collection's dataset would otherwise show
// that collection's files, changes and consents on the card, and Verify would record "intact"
// for the wrong dataset; a folder that cannot be written to would fail only on Sync. Each
// refusal is a sentence saying what is wrong and what to do instead.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { bindingConflict, defaultConsentsDir, openDestination, peekOwner, stateDir, type FolderOwner } from '../sync/engine';

/** Another collection's folders as the settings know them (any account). */
export interface KnownDataset {
  label: string;
  dest: string;
  consentsDir?: string;
}

const CONSENTS_SUFFIX = '.consents';

/** `inner` is `outer` or a folder under it. */
function within(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

async function exists(p: string): Promise<boolean> {
  return fs.lstat(p).then(
    () => true,
    () => false,
  );
}

/** Why the folder's recorded owner is another service or collection; null when it is `wanted`'s or nobody's. */
export function ownerConflict(dest: string, wanted: FolderOwner): string | null {
  // A folder answers the peek synchronously (its peekText); opening it touches nothing.
  const peeked = peekOwner(openDestination(dest));
  const state = peeked instanceof Promise ? null : peeked;
  if (!state || bindingConflict(dest, state, wanted) === null) return null;
  const holds = `collection ${state.collectionId ?? '?'}${state.baseUrl === null ? '' : ` of ${state.baseUrl}`}`;
  return `${dest} already holds the dataset of ${holds}. A dataset folder belongs to one service and one collection: choose an empty folder, or this collection's own.`;
}

/** A dataset folder (or the consents folder next to one) on the way from `dest` up to the root. */
async function enclosingDataset(dest: string): Promise<string | null> {
  for (let dir = dest; ; dir = path.dirname(dir)) {
    if (dir !== dest && (await exists(stateDir(dir)))) {
      return `${dest} is inside the dataset folder ${dir}. Datasets cannot be nested: choose a folder outside it.`;
    }
    const base = path.basename(dir);
    if (base.endsWith(CONSENTS_SUFFIX) && base.length > CONSENTS_SUFFIX.length) {
      const owner = path.join(path.dirname(dir), base.slice(0, -CONSENTS_SUFFIX.length));
      if (await exists(stateDir(owner))) {
        return `${dest} is ${dir === dest ? '' : 'inside '}the consents folder of the dataset ${owner}. Choose a folder outside it.`;
      }
    }
    if (path.dirname(dir) === dir) return null;
  }
}

/** The settings' other folders: the same folder, one inside another, or a consents folder. */
function clashWithKnown(dest: string, known: readonly KnownDataset[]): string | null {
  for (const other of known) {
    const otherDest = path.resolve(other.dest);
    const consents = path.resolve(other.consentsDir ?? defaultConsentsDir(other.dest));
    if (otherDest === dest) return `${dest} is already the dataset folder of ${other.label}. Each collection needs its own folder.`;
    if (within(dest, otherDest)) return `${dest} is inside the dataset folder of ${other.label} (${otherDest}). Choose a folder outside it.`;
    if (within(otherDest, dest)) return `${dest} holds the dataset folder of ${other.label} (${otherDest}). Choose a folder that holds no other dataset.`;
    if (within(dest, consents)) return `${dest} is inside the consents folder of ${other.label} (${consents}). Choose a folder outside it.`;
  }
  return null;
}

/**
 * Creating and removing a file is the only true test of "can write here" (read-only mounts,
 * ACLs, root on a read-only file system all pass an access() check or lie to it). The folder
 * may not exist yet: its nearest existing parent is where the sync would create it.
 */
async function notWritable(dest: string): Promise<string | null> {
  let dir = dest;
  for (;;) {
    const stat = await fs.stat(dir).catch(() => null);
    if (stat) {
      if (!stat.isDirectory()) return `${dir} is a file, not a folder. Choose a folder.`;
      break;
    }
    if (path.dirname(dir) === dir) return `${dest} cannot be created: no part of its path exists.`;
    dir = path.dirname(dir);
  }
  const probe = path.join(dir, `.dataset-sync-write-test-${randomBytes(6).toString('hex')}`);
  try {
    await fs.writeFile(probe, '', { flag: 'wx' });
    await fs.rm(probe, { force: true });
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    const where = dir === dest ? dest : `${dir} (where ${dest} would be created)`;
    return `The app cannot write to ${where} (${code}). Choose a folder you can write to.`;
  }
}

/** Why `dest` may not become `wanted`'s dataset folder, in words; null when it may. */
export async function checkChosenFolder(chosen: string, wanted: FolderOwner, known: readonly KnownDataset[]): Promise<string | null> {
  if (!path.isAbsolute(chosen)) return `${chosen} is not an absolute path. Choose a folder.`;
  const dest = path.resolve(chosen);
  return clashWithKnown(dest, known) ?? ownerConflict(dest, wanted) ?? (await enclosingDataset(dest)) ?? (await notWritable(dest));
}

// The folder checks around a commit's rename (part-upload.ts): is each folder on a file's way
// still a real folder (lstat: not a link, not a file)? Many commits ask about the same folders at
// the same moment: every file's way passes sets/, and a set's files (one per slot, downloaded side
// by side) share sets/<id>. Each ask cost an lstat on the thread pool, four per file (issue #21:
// the pool's wake-ups were most of a small file's CPU), so asks are shared here, never answered
// stale: an ask is answered by an lstat that started after it was made. It joins the lstat
// queued to start when the one running now ends, or starts one when none is running. Whoever
// asked before the rename (the file still in partial/) or after it (was it moved into a swapped
// folder?) thus gets an answer about the folder as it was at or after that moment, exactly what
// its own lstat would have given; only the number of lstat calls drops.
import { lstat } from 'node:fs';

/** One folder's lstat now: true when something other than a real folder is there; a missing folder (or any error) is not (the rename judges). */
function notRealFolderNow(dir: string): Promise<boolean> {
  return new Promise((resolve) => lstat(dir, (err, st) => resolve(!err && !st.isDirectory())));
}

interface Slot {
  running: Promise<boolean>;
  /** The lstat that starts when `running` ends, shared by everyone who asked meanwhile. */
  queued: Promise<boolean> | null;
}

export class FolderChecks {
  /** Folders with an lstat running; an entry goes when its last lstat ends with nobody queued (memory: the folders in flight). */
  private readonly slots = new Map<string, Slot>();

  /** Whether `dir` is not a real folder, by an lstat that starts after this call. */
  notRealFolder(dir: string): Promise<boolean> {
    const slot = this.slots.get(dir);
    if (!slot) return this.run(dir, { running: Promise.resolve(false), queued: null });
    slot.queued ??= slot.running.then(() => this.run(dir, slot));
    return slot.queued;
  }

  /** Folders with a check running (tests). */
  get inFlight(): number {
    return this.slots.size;
  }

  private run(dir: string, slot: Slot): Promise<boolean> {
    // Those who queued are answered by this lstat; who asks from now on queues behind it.
    slot.queued = null;
    const running = notRealFolderNow(dir);
    slot.running = running;
    this.slots.set(dir, slot);
    void running.then(() => {
      if (slot.running === running && slot.queued === null) this.slots.delete(dir);
    });
    return running;
  }
}

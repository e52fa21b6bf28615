// Small files written whole by one worker thread (issue #21, small files at line rate). A small
// file's life on the thread pool was eight to ten calls (open, write, fstat, close, rename, the
// folder lstats), each a hop to a pool thread and back: on 2 cores the wake-ups, not the calls,
// were most of a small file's CPU (strace: ~3.5 futex per call). Here the whole life is one
// message: the worker makes the calls synchronously, one after the other, and answers. Measured
// on 20,000 files of 1 KiB, four at a time (temp file, write, fstat, close, rename, four lstats):
// 9.0–11.0 s of CPU through the thread pool, 2.4–2.7 s through this worker, and 2–3x the files
// per second. The event loop still makes no file-system call of its own.
// Requests are sent a turn of the event loop at a time, in one message (replies come back the
// same way): a message to a worker that sleeps costs a wake-up of its thread, 34 us of the
// sender's time on these 2-core VMs against 3-6 us for one that is busy (measured with 2,000
// messages each way), so per file that was most of what the writer saved. And while the writer
// still has requests to answer, new writes wait here rather than queue behind them: the writer
// would reach them only after those anyway, and one message then carries what several turns
// asked (a first sync at 10,000 sets: 5,500-6,200 messages instead of 13,800-19,900).
//
// The same thread answers batches of lstat calls (the disk check, presence-check.ts presenceProblems):
// through the thread pool each path cost the event loop about 8 us (the request, its callback, a
// Stats object with its Dates: 0.42 s for a no-op's 50,000 paths at 10,000 sets) besides the
// pool's wake-ups; here a batch is one message each way.
//
// The worker is plain JavaScript evaluated from a string (as sha256-stream.ts's), so it runs alike
// under tsx, in the bundled CLI, in the Electron main process and in the app's engine thread.
import { Worker } from 'node:worker_threads';

export interface PutRequest {
  /** A fresh temp name (tempPathFor) on the target's file system: opened 'wx', never through something planted there. */
  tmp: string;
  target: string;
  /** A string, or bytes (copied to the worker unless `handOver`). */
  data: string | Uint8Array;
  /** The bytes are a whole ArrayBuffer of the caller's own, handed to the worker without a copy: the caller must not touch them again. */
  handOver?: boolean;
  /** The exact mode (fchmod when the umask masked it); null: the umask decides, as for any new file. */
  mode: number | null;
  /**
   * Folders that must be real folders (lstat: not a link) before and after the rename
   * (part-upload.ts explains why both); a folder that is missing passes (the rename judges). The
   * puts of one message share these lstat calls (the worker's putAll).
   */
  folders: readonly string[];
  /**
   * The target's folder is made when missing (a new set's folder, or one deleted mid-sync): before
   * the rename when the check of `folders` (the last one being the target's) found it missing,
   * else when the rename does.
   */
  makeFolder: boolean;
}

/**
 * What was written: size and mtime from fstat before close (rename and fchmod keep them), and
 * whether the target's folder was made for it (makeFolder); or the folder found linked.
 */
export type PutResult = { size: number; mtimeMs: number; madeFolder: boolean } | { linked: string; when: 'before' | 'after' };

/**
 * What lstat found at each path of a batch, STAT_FIELDS numbers per path: its kind (PATH_*), its
 * size and its mtime in ms (exactly fs.Stats' mtimeMs). Nothing there, or any error: all three 0.
 */
export type PathStats = Float64Array;
export const STAT_FIELDS = 3;
export const PATH_FILE = 1;
export const PATH_FOLDER = 2;
export const PATH_OTHER = 3;
/** Not looked at: its gate was not a real folder (FileWriter.lstatMany). */
export const PATH_SKIPPED = 4;

type Reply = { id: number } & (
  | { size: number; mtimeMs: number; madeFolder: boolean }
  | { linked: string; when: 'before' | 'after' }
  | { stats: PathStats }
  | { error: WireError }
);

interface WireError {
  code?: string;
  syscall?: string;
  path?: string;
  message: string;
}

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
let replies = [];
let flushing = false;
// Replies of one turn go back in one message: one wake-up of the engine's thread for several files.
function reply(r) {
  replies.push(r);
  if (flushing) return;
  flushing = true;
  setImmediate(sendReplies);
}
function sendReplies() {
  flushing = false;
  if (replies.length === 0) return;
  const out = replies;
  replies = [];
  parentPort.postMessage(out);
}
// What lstat found at a folder: a real folder (or an error, judged by the rename), something
// that is not a folder (a link), or nothing yet.
const REAL = 0;
const LINKED = 1;
const MISSING = 2;
function folderState(dir) {
  let st;
  try { st = fs.lstatSync(dir, { throwIfNoEntry: false }); } catch { return REAL; }
  return st === undefined ? MISSING : st.isDirectory() ? REAL : LINKED;
}
// The first of dirs that is not a real folder; each folder is looked at once per map seen.
function linkedFolder(dirs, seen) {
  for (const dir of dirs) {
    let state = seen.get(dir);
    if (state === undefined) seen.set(dir, (state = folderState(dir)));
    if (state === LINKED) return dir;
  }
  return null;
}
// The puts of one batch, their folder checks shared (as folder-checks.ts shares them between
// concurrent commits of large files): each folder is lstat'ed once before the batch's first
// rename into it, which is after every put of the batch was asked, and once after its last one.
// A swap between the two is found by the second, as it was when each file had its own pair (four
// of the nine calls a small file cost; sharing them took a first sync's statx calls at 10,000
// sets from 321,553 to 239,846).
function putAll(puts) {
  const before = new Map();
  const written = [];
  for (const m of puts) {
    const linked = linkedFolder(m.folders, before);
    if (linked !== null) reply({ id: m.id, linked, when: 'before' });
    else {
      const r = write(m, before);
      if (r.error !== undefined) reply(r);
      else written.push([m.folders, r]);
    }
  }
  const after = new Map();
  for (const [folders, r] of written) {
    const linked = linkedFolder(folders, after);
    reply(linked === null ? r : { id: r.id, linked, when: 'after' });
  }
}
// \`before\`: what the checks before the rename found at each folder of the batch.
function write(m, before) {
  let fd;
  try {
    fd = fs.openSync(m.tmp, 'wx', m.mode === null ? 0o644 : m.mode);
    const data = typeof m.data === 'string' ? Buffer.from(m.data) : Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength);
    for (let off = 0; off < data.length; ) off += fs.writeSync(fd, data, off, data.length - off);
    const st = fs.fstatSync(fd);
    if (m.mode !== null && (st.mode & 0o777) !== m.mode) fs.fchmodSync(fd, m.mode);
    fs.closeSync(fd);
    fd = undefined;
    let madeFolder = false;
    // The target's folder was found missing just before (a new set's set.json): made first, not
    // after a rename that fails on it (a thrown error with its stack per new set, 10,000 at a
    // first sync of 10,000 sets). A folder removed since is still made by the retry below.
    const folder = m.folders[m.folders.length - 1];
    if (m.makeFolder && folder !== undefined && before.get(folder) === MISSING && path.dirname(m.target) === folder) {
      madeFolder = fs.mkdirSync(folder, { recursive: true }) !== undefined;
      before.set(folder, REAL);
    }
    try {
      fs.renameSync(m.tmp, m.target);
    } catch (e) {
      if (e.code !== 'ENOENT' || !m.makeFolder) throw e;
      madeFolder = fs.mkdirSync(path.dirname(m.target), { recursive: true }) !== undefined || madeFolder;
      fs.renameSync(m.tmp, m.target);
    }
    return { id: m.id, size: st.size, mtimeMs: st.mtimeMs, madeFolder };
  } catch (e) {
    if (fd !== undefined) try { fs.closeSync(fd); } catch {}
    try { fs.rmSync(m.tmp, { force: true }); } catch {}
    return { id: m.id, error: { code: e.code, syscall: e.syscall, path: e.path, message: String(e.message) } };
  }
}
// A path whose gate (an earlier path of the same batch) is neither missing nor a real folder is
// not looked at: nothing is ever stat'ed through a link.
function lstatMany(m) {
  const out = new Float64Array(m.stat.length * ${STAT_FIELDS});
  m.stat.forEach((p, i) => {
    const gate = m.gates[i];
    const gateKind = gate >= 0 ? out[gate * ${STAT_FIELDS}] : ${PATH_FOLDER};
    if (gateKind === ${PATH_FILE} || gateKind === ${PATH_OTHER} || gateKind === ${PATH_SKIPPED}) {
      out[i * ${STAT_FIELDS}] = ${PATH_SKIPPED};
      return;
    }
    let st;
    try { st = fs.lstatSync(p, { throwIfNoEntry: false }); } catch { return; }
    if (st === undefined) return;
    out[i * ${STAT_FIELDS}] = st.isFile() ? ${PATH_FILE} : st.isDirectory() ? ${PATH_FOLDER} : ${PATH_OTHER};
    out[i * ${STAT_FIELDS} + 1] = st.size;
    out[i * ${STAT_FIELDS} + 2] = st.mtimeMs;
  });
  return { id: m.id, stats: out };
}
// Requests come in batches (one message per turn of the engine's thread, like the replies).
// A batch of lstat calls is answered at once: the disk check sends its next batch while this one
// runs, and a reply held to the end of the turn would wait for that one too.
parentPort.on('message', (batch) => {
  let puts = [];
  for (const m of batch) {
    if (m.stat === undefined) {
      puts.push(m);
      continue;
    }
    if (puts.length > 0) putAll(puts);
    puts = [];
    reply(lstatMany(m));
    sendReplies();
  }
  if (puts.length > 0) putAll(puts);
});
`;

interface Waiting {
  resolve(r: PutResult | PathStats): void;
  reject(e: Error): void;
}

type Outgoing = (Omit<PutRequest, 'handOver'> & { id: number }) | { id: number; stat: readonly string[]; gates: readonly number[] };

export class FileWriter {
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private dead = false;
  /** Requests not yet sent, posted in one message (send): one postMessage (a structured clone and a wake-up of the worker) per turn at most, not per file. */
  private outbox: Outgoing[] = [];
  private outboxTransfer: ArrayBuffer[] = [];
  private sendQueued = false;

  private constructor(private readonly worker: Worker) {
    // Referenced only while a write is waiting: an idle writer never keeps a process from exiting.
    worker.unref();
    worker.on('message', (replies: Reply[]) => {
      for (const r of replies) this.settle(r);
      if (this.unanswered === 0 && this.outbox.length > 0) this.queueSend();
    });
    const die = (err: Error) => {
      this.dead = true;
      if (shared === this) shared = undefined;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    worker.on('error', (e) => die(new Error(`the file writer thread failed: ${e.message}`)));
    worker.on('exit', (code) => die(new Error(`the file writer thread exited (code ${code})`)));
  }

  static start(): FileWriter | null {
    try {
      return new FileWriter(new Worker(WORKER_SOURCE, { eval: true }));
    } catch {
      return null; // no worker threads here
    }
  }

  /** Writes `req.data` to `req.tmp` and renames it to `req.target`, all on the writer thread; rejects with the failing call's error (code, syscall, path). */
  put(req: PutRequest): Promise<PutResult> {
    const data = req.data;
    if (req.handOver === true && typeof data !== 'string' && !this.dead) this.outboxTransfer.push(data.buffer as ArrayBuffer);
    // Field by field (a rest and a spread of the request cost several us per file), handOver left out.
    return this.request((id) => ({ id, tmp: req.tmp, target: req.target, data, mode: req.mode, folders: req.folders, makeFolder: req.makeFolder })) as Promise<PutResult>;
  }

  /**
   * lstat of every path, on the writer thread (a link at the last step is reported, not followed):
   * STAT_FIELDS numbers per path, in order. `gates[i]`, when 0 or more, is the index of an earlier
   * path (its folder) that must be missing or a real folder for path i to be looked at; else path
   * i is PATH_SKIPPED, and so are the paths it gates.
   */
  lstatMany(paths: readonly string[], gates: readonly number[]): Promise<PathStats> {
    return this.request((id) => ({ id, stat: paths, gates })) as Promise<PathStats>;
  }

  private request(message: (id: number) => Outgoing): Promise<PutResult | PathStats> {
    if (this.dead) return Promise.reject(new Error('the file writer thread has stopped'));
    const id = this.nextId++;
    return new Promise<PutResult | PathStats>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      if (this.waiting.size === 1) this.worker.ref();
      const m = message(id);
      this.outbox.push(m);
      // The disk check sends its next batch of lstat calls while one runs: never held back.
      if (this.unanswered === 0 || 'stat' in m) this.queueSend();
    });
  }

  /** Requests sent and not yet answered (every waiting one not in the outbox): while there are any, writes wait in the outbox (a batch of lstat calls does not). */
  private get unanswered(): number {
    return this.waiting.size - this.outbox.length;
  }

  private queueSend(): void {
    if (this.sendQueued) return;
    this.sendQueued = true;
    setImmediate(() => this.send());
  }

  /** Posts the requests waiting in the outbox as one batch (setImmediate: after every I/O callback of the turn, so the commits of all the bodies that ended in it share one message). */
  private send(): void {
    this.sendQueued = false;
    const batch = this.outbox;
    const transfer = this.outboxTransfer;
    this.outbox = [];
    this.outboxTransfer = [];
    if (batch.length === 0) return;
    try {
      this.worker.postMessage(batch, transfer);
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      for (const m of batch) {
        this.waiting.get(m.id)?.reject(err);
        this.waiting.delete(m.id);
      }
      if (this.waiting.size === 0) this.worker.unref();
    }
  }

  private settle(r: Reply): void {
    const w = this.waiting.get(r.id);
    if (!w) return;
    this.waiting.delete(r.id);
    if (this.waiting.size === 0) this.worker.unref();
    if ('error' in r) w.reject(errnoError(r.error));
    else if ('stats' in r) w.resolve(r.stats);
    else if ('linked' in r) w.resolve({ linked: r.linked, when: r.when });
    else w.resolve({ size: r.size, mtimeMs: r.mtimeMs, madeFolder: r.madeFolder });
  }
}

function errnoError(e: WireError): NodeJS.ErrnoException {
  return Object.assign(new Error(e.message), { code: e.code, syscall: e.syscall, path: e.path });
}

let shared: FileWriter | undefined;
let unavailable = false;

/**
 * False when DATASET_SYNC_FILE_WRITER=off (tests of the other path, before/after measurements):
 * callers then use part files and the thread pool. Read once per folder opened: a read of
 * process.env costs microseconds, too much to pay per file.
 */
export function fileWriterWanted(): boolean {
  return process.env.DATASET_SYNC_FILE_WRITER !== 'off';
}

/** The process's writer, started on first use; null where no worker thread can start (callers then use part files and the thread pool). */
export function fileWriter(): FileWriter | null {
  if (shared !== undefined) return shared;
  if (unavailable) return null;
  const started = FileWriter.start();
  if (started === null) unavailable = true;
  else shared = started;
  return started;
}

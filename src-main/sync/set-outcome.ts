// How one set ends: the progress its steps share (set.json, each file to fetch, each consent and
// the planning itself), the last step deciding the set's outcome (complete, or failed and
// pending), and the failures reported for a whole set or one file. Apart from the plan
// (set-plan.ts) so the steps it queues (file-download.ts, set-consents.ts) end here without
// importing the plan back.
import type { FileRecord, SetRecord } from '../../src-shared/delivery-api';
import type { FailureCode } from '../../src-shared/sync-events';
import { relFilePath } from './layout';
import type { RunContext } from './run-context';
import type { SetView } from './state/engine-store';

export interface SetProgress {
  set: SetRecord;
  /** The set's record as the plan found it (read-only: what happens to it goes to the store as intents). */
  local: SetView;
  outstanding: number;
  /** Why steps of the set failed, in order; the first one's code is the set's. */
  failures: Array<{ reason: string; code: FailureCode }>;
  /** Sizes of the files queued for download (progress: the bytes of a set that ended). */
  queuedBytes: number;
  /** Whether set.json was written (its folder made), once known: a download then need not wait on folderReady. */
  folderMade?: boolean;
}

/** A set that failed as a whole before any of its files was looked at (reported, counted). */
export function failSet(ctx: RunContext, setId: number, reason: string, code: FailureCode, event = true): void {
  ctx.accounting.recordFailure({ setId, reason, code });
  ctx.accounting.setsFailed++;
  if (event) ctx.emit({ type: 'set', setId, state: 'failed', files: 0, isGold: false, reason, code });
}

/** A set the service no longer serves as accepted: reported, its local files kept. */
export function reportNotServed(ctx: RunContext, id: number, reason: string): void {
  ctx.accounting.notServed(id);
  const local = ctx.state.store.get(id);
  ctx.emit({ type: 'set', setId: id, state: 'not_served', files: local ? Object.keys(local.files).length : 0, isGold: local?.isGold ?? false, reason });
}

export function fileFailed(ctx: RunContext, sp: SetProgress, file: FileRecord, rel: string, reason: string, code: FailureCode): void {
  sp.failures.push({ reason, code });
  ctx.accounting.filesFailed++;
  ctx.accounting.recordFailure({ setId: sp.set.id, fileId: file.id, path: rel, reason, code });
  ctx.emit({ type: 'file', setId: sp.set.id, fileId: file.id, path: rel, sizeBytes: file.size_bytes, state: 'failed', reason, code });
}

/** One step of the set finished; the last one decides the set's outcome. */
export function stepDone(ctx: RunContext, sp: SetProgress): void {
  if (--sp.outstanding > 0) return;
  const set = sp.set;
  const state = ctx.state;
  if (ctx.signal.aborted && sp.failures.length === 0) {
    state.store.addPending(set.id); // unfinished: the next sync picks it up whatever the watermark
    return;
  }
  ctx.accounting.bytesOfEndedSets += sp.queuedBytes;
  if (sp.failures.length === 0) {
    removeReplacedFiles(ctx, sp);
    state.store.setOutcome(set.id, { updatedAt: set.updated_at, isGold: set.is_gold, complete: true });
    state.store.dropPending(set.id);
    ctx.accounting.setsComplete++;
    ctx.emit({ type: 'set', setId: set.id, state: 'complete', files: set.files.length, isGold: set.is_gold });
  } else {
    state.store.setOutcome(set.id, { updatedAt: set.updated_at, isGold: set.is_gold, complete: false });
    state.store.addPending(set.id);
    ctx.accounting.setsFailed++;
    const reason = sp.failures
      .slice(0, 3)
      .map((f) => f.reason)
      .join('; ');
    ctx.emit({ type: 'set', setId: set.id, state: 'failed', files: set.files.length, isGold: set.is_gold, reason, code: sp.failures[0]!.code });
  }
}

/** An edit that renamed a slot's file (e.g. a new extension) replaces the old file of that slot. */
function removeReplacedFiles(ctx: RunContext, sp: SetProgress): void {
  const { set, local } = sp;
  const current = new Map(set.files.map((f) => [f.slot_index, relFilePath(set.id, f.filename)]));
  for (const [rel, entry] of Object.entries(local.files)) {
    const now = current.get(entry.slotIndex);
    if (now !== undefined && now !== rel) {
      ctx.state.store.dropFiles(set.id, [rel], 'replaced');
      void ctx.inFlight.track(ctx.dest.remove(rel).catch(() => undefined));
    }
  }
}

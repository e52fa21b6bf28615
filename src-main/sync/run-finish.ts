// The end of a run (run.ts), whatever stopped it: the watermark moved when the walk completed,
// the stages and the sets' last writes waited for, the end's look at the files the run worked on,
// the dataset index and the state saved, then the summary (counts, exit code, storage) and the
// history. A new folder the service never answered for is left as it was.
import type { SyncSummary } from '../../src-shared/sync-events';
import { writeDatasetIndex } from './dataset-index';
import { dropEntries, findUnhealedEntries } from './disk-check';
import { localFsError } from './local-errors';
import { fatalAnywhere, summaryExitCode } from './outcome';
import type { RunFields } from './run-fields';
import { appendHistory } from './state/history';
import { laterTimestamp } from './walk';

function newSummary(run: RunFields): SyncSummary {
  return {
    collectionId: run.options.collectionId,
    dest: run.dest?.label ?? run.settings?.dest ?? run.options.dest,
    ...(run.consents ? { consentsDir: run.consents.label } : {}),
    sets: 0,
    setsComplete: 0,
    setsFailed: 0,
    setsNotServed: [],
    withdrawnSets: 0,
    filesDownloaded: 0,
    filesUpToDate: 0,
    filesFailed: 0,
    bytesDownloaded: 0,
    bytesHashed: 0,
    requests: 0,
    failures: [],
    mediaProblems: 0,
    watermark: null,
    startedAt: new Date(run.startedAt).toISOString(),
    finishedAt: '',
    durationMs: 0,
    exitCode: 0,
    cancelled: false,
  };
}

export async function finish(run: RunFields, walkCompleted: boolean): Promise<SyncSummary> {
  const s = newSummary(run);
  s.cancelled = run.options.signal?.aborted === true && !run.fatal;
  const state = run.state;
  const dest = run.dest;
  // A new folder the service never answered for stays as it was: unbound, no dataset files.
  if (state && dest && run.ownerToBind) state.store.close();
  else if (state && dest) {
    const head = state.head;
    s.watermark = head.watermark;
    try {
      if (walkCompleted && !run.fatal && run.maxUpdatedAt !== null) {
        const watermark = laterTimestamp(head.watermark, run.maxUpdatedAt);
        if (watermark !== null) state.store.setWatermark(watermark);
      }
      // A set with no file to fetch ends with its set.json, which may still be on its way.
      await run.inFlight.settled();
      const stages = run.stages;
      if (stages) {
        // Every transfer has ended; what the stages still read on their own is waited for (and
        // recorded) before the index is written. Said as such, with the files left.
        const work = stages.work();
        if (work.total > work.done) {
          run.accounting.phase = 'checking_media';
          run.progress?.update();
        }
        await stages.finish();
      }
      run.accounting.phase = 'writing_manifest';
      run.progress?.update();
      await state.settled();
      // The sets this sync worked on are looked at again too: a file verified here may have gone
      // since. The look only reads, so it runs beside the dataset files' pass (their files'
      // lstat calls on the file writer thread while this one writes the files); in the rare sync
      // where it finds an entry to drop, the files are written again without it.
      const unhealed = run.diskCheck ? findUnhealedEntries(dest, state, [...run.diskCheck.damaged.keys(), ...run.escaped, ...run.seen]) : undefined;
      void unhealed?.catch(() => undefined); // its failure is thrown below, once the writing has ended
      const stageFiles = run.stages?.datasetFiles ?? [];
      let stageSummary;
      try {
        stageSummary = await writeDatasetIndex(dest, state, stageFiles);
      } finally {
        // Never left running past a failed writing: the state and the destination close after it.
        await unhealed?.catch(() => undefined);
      }
      const lost = dropEntries(state, (await unhealed) ?? new Map());
      for (const id of lost) if (run.seen.has(id)) state.store.addPending(id);
      if (lost.length > 0) stageSummary = await writeDatasetIndex(dest, state, stageFiles, true);
      Object.assign(s, stageSummary);
      if (state.head.research) s.consentMissingSets = state.head.research.consentMissingSets;
      await state.saveIfChanged();
    } catch (e) {
      const err = localFsError(e, `write the dataset index in ${dest.label}`);
      run.fatal ??= fatalAnywhere(err) ?? { kind: 'local_fs', message: err.message };
    }
    s.watermark = head.watermark;
    state.store.close();
  }
  run.progress?.stop();
  run.accounting.fill(s);
  if (run.diskCheck) {
    const { files, missing, changed, durationMs } = run.diskCheck;
    s.diskCheck = { files, missing, changed, durationMs };
  }
  s.requests = run.client?.requestCount ?? 0;
  const finished = run.deps.clock.now();
  s.finishedAt = new Date(finished).toISOString();
  s.durationMs = finished - run.startedAt;
  if (run.fatal) s.fatal = { kind: run.fatal.kind, message: run.fatal.message };
  s.exitCode = summaryExitCode(run.fatal, s);
  if (dest && state && s.exitCode === 0 && dest.cleanUp) {
    // Under the lock still: no multipart upload of this destination stays open after a clean sync.
    await dest.cleanUp().catch((e: unknown) => run.emit({ type: 'warning', message: `Could not abort leftover uploads in ${dest.label}: ${(e as Error).message}` }));
  }
  const storage = dest?.stats?.();
  if (storage) s.storage = storage;
  if (!run.deps.client) await run.client?.close().catch(() => undefined);
  if (state && dest) await appendHistory(dest.stateDir, s).catch(() => undefined);
  run.emit({ type: 'summary', summary: s });
  return s;
}

// Scenario 3: 10,000 accepted sets (40,000 small files) already synced and verified; a no-op
// incremental sync (which checks every recorded file on disk: one lstat each, nothing hashed),
// a --full rescan, and a plain sync that heals one deleted file. Request counts come from the
// service's own stats; the disk check's own time from summary.diskCheck. The scenario is about
// the listing, not the bodies: they are 1 KiB synthetic bytes listed as videos. Every run keeps
// the product's defaults, so the initial sync's media check reads each and records it as
// unreadable (work the product does); the re-syncs have nothing left to check.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { dropDest, freshDest, table, type BenchContext, type Section } from '../lib/context';
import { runOurs, type OursRun } from '../lib/peers';
import { bodiesLine, startBenchService } from '../lib/service';
import { fmt, median } from '../lib/stats';
import { LEFT_ACCEPTED_STATUSES } from '../../src-main/sync/withdraw';

/**
 * A sync of a dataset that held sets asks the sets route once per other set status (the
 * withdrawal check, sync/withdraw.ts): issue 21's request bounds allow them besides their own.
 */
const STATUS_QUERIES = LEFT_ACCEPTED_STATUSES.length;

export interface MetadataResult {
  section: Section;
  rssKb: number[];
  /** Peak RSS of a no-op and of a --full run at the full set count and at a quarter of it (scenario 5). */
  bySetCount: Array<{ sets: number; initialKb: number; noopKb: number; fullKb: number }>;
}

/** Scenario 5's question "does memory grow with the set count?": the same runs at a smaller scale. */
async function rssAtScale(ctx: BenchContext, sets: number): Promise<{ sets: number; initialKb: number; noopKb: number; fullKb: number }> {
  const svc = await startBenchService({ sets, fileSize: 1024, dataDir: ctx.dataDir });
  const dest = await freshDest(ctx);
  try {
    const runs = [await runOurs(svc, dest), await runOurs(svc, dest), await runOurs(svc, dest, { full: true })];
    if (!runs.every((r) => r.ok)) throw new Error(`sync of ${sets} sets failed: ${runs.map((r) => r.note ?? '').join(' ')}`);
    ctx.log(`  ${sets} sets: peak RSS initial/no-op/--full ${runs.map((r) => fmt((r.maxRssKb ?? NaN) / 1024, 0)).join('/')} MB`);
    return { sets, initialKb: runs[0]!.maxRssKb ?? NaN, noopKb: runs[1]!.maxRssKb ?? NaN, fullKb: runs[2]!.maxRssKb ?? NaN };
  } finally {
    await svc.stop();
    await dropDest(dest);
  }
}

function pageRequests(byRoute: Record<string, number>): number {
  return Object.entries(byRoute)
    .filter(([route]) => /\/sets$/.test(route))
    .reduce((a, [, n]) => a + n, 0);
}

export async function scenarioMetadata(ctx: BenchContext): Promise<MetadataResult> {
  const sets = ctx.quick ? 500 : 10_000;
  ctx.log(`Scenario 3: ${sets} sets x 4 x 1 KiB`);
  const svc = await startBenchService({ sets, fileSize: 1024, dataDir: ctx.dataDir });
  const dest = await freshDest(ctx);
  try {
    const initial = await runOurs(svc, dest);
    ctx.log(`  initial sync: ${(initial.wallMs / 1000).toFixed(1)} s${initial.ok ? '' : ` FAILED ${initial.note ?? ''}`}`);
    if (!initial.ok) throw new Error(`initial sync failed: ${initial.note ?? ''}`);

    const noop: Array<{ run: OursRun; requests: number; routes: Record<string, number> }> = [];
    for (let i = 0; i < Math.max(1, ctx.reps); i++) {
      await svc.resetStats();
      const run = await runOurs(svc, dest);
      const st = await svc.stats();
      ctx.log(`  no-op ${i + 1}: ${(run.wallMs / 1000).toFixed(2)} s, ${st.requests} requests, disk check ${fmt(run.summary?.diskCheck?.durationMs ?? NaN, 0)} ms over ${run.summary?.diskCheck?.files ?? '?'} files`);
      if (!run.ok) throw new Error(`no-op sync failed: ${run.note ?? ''}`);
      noop.push({ run, requests: st.requests, routes: st.byRoute });
    }
    const full: Array<{ run: OursRun; requests: number; pages: number; routes: Record<string, number> }> = [];
    for (let i = 0; i < (ctx.quick ? 1 : 2); i++) {
      await svc.resetStats();
      const run = await runOurs(svc, dest, { full: true });
      const st = await svc.stats();
      ctx.log(`  --full ${i + 1}: ${(run.wallMs / 1000).toFixed(2)} s, ${st.requests} requests`);
      if (!run.ok) throw new Error(`--full sync failed: ${run.note ?? ''}`);
      full.push({ run, requests: st.requests, pages: pageRequests(st.byRoute), routes: st.byRoute });
    }

    // A plain sync after one media file was deleted: the disk check finds it, its set is fetched
    // again (GET /sets/:id) and only that file is downloaded.
    const victim = (await fs.readdir(path.join(dest, 'sets'))).sort()[0]!;
    const victimFile = (await fs.readdir(path.join(dest, 'sets', victim))).find((f) => f !== 'set.json')!;
    await fs.rm(path.join(dest, 'sets', victim, victimFile));
    await svc.resetStats();
    const heal = await runOurs(svc, dest);
    const healStats = await svc.stats();
    ctx.log(`  heal 1 deleted file: ${(heal.wallMs / 1000).toFixed(2)} s, ${healStats.requests} requests, ${heal.summary?.filesDownloaded ?? '?'} downloaded`);
    if (!heal.ok || heal.summary?.filesDownloaded !== 1) throw new Error(`healing sync failed: ${heal.note ?? ''} (downloaded ${heal.summary?.filesDownloaded})`);

    const noopWall = median(noop.map((n) => n.run.wallMs));
    const noopCheckMs = median(noop.map((n) => n.run.summary?.diskCheck?.durationMs ?? NaN));
    const checkedFiles = noop.at(-1)?.run.summary?.diskCheck?.files ?? NaN;
    const noopEngine = median(noop.map((n) => n.run.summary?.durationMs ?? NaN));
    const noopReq = Math.max(...noop.map((n) => n.requests));
    const noopHashed = Math.max(...noop.map((n) => n.run.summary?.bytesHashed ?? NaN));
    const fullPages = Math.max(...full.map((f) => f.pages));
    const checkMs = (r: OursRun) => fmt(r.summary?.diskCheck?.durationMs ?? NaN, 0);
    const rows = [
      ['initial sync (setup)', fmt(initial.wallMs / 1000), fmt((initial.summary?.durationMs ?? NaN) / 1000), checkMs(initial), initial.summary?.requests ?? 'n/a', '', initial.summary?.bytesHashed ?? 'n/a', fmt((initial.maxRssKb ?? NaN) / 1024, 0)],
      ...noop.map((n, i) => [`no-op re-sync #${i + 1}`, fmt(n.run.wallMs / 1000), fmt((n.run.summary?.durationMs ?? NaN) / 1000), checkMs(n.run), n.requests, pageRequests(n.routes), n.run.summary?.bytesHashed ?? 'n/a', fmt((n.run.maxRssKb ?? NaN) / 1024, 0)]),
      ...full.map((f, i) => [`--full rescan #${i + 1}`, fmt(f.run.wallMs / 1000), fmt((f.run.summary?.durationMs ?? NaN) / 1000), checkMs(f.run), f.requests, f.pages, f.run.summary?.bytesHashed ?? 'n/a', fmt((f.run.maxRssKb ?? NaN) / 1024, 0)]),
      ['plain sync healing 1 deleted file', fmt(heal.wallMs / 1000), fmt((heal.summary?.durationMs ?? NaN) / 1000), checkMs(heal), healStats.requests, pageRequests(healStats.byRoute), heal.summary?.bytesHashed ?? 'n/a', fmt((heal.maxRssKb ?? NaN) / 1024, 0)],
    ];
    const quarter = await rssAtScale(ctx, sets / 4);
    const bySetCount = [
      quarter,
      {
        sets,
        initialKb: initial.maxRssKb ?? NaN,
        noopKb: median(noop.map((n) => n.run.maxRssKb ?? NaN)),
        fullKb: median(full.map((f) => f.run.maxRssKb ?? NaN)),
      },
    ];
    const body = [
      `${sets} accepted sets, ${sets * 4} files of 1 KiB, synced once (setup) and then re-synced. "process wall" includes the start-up of \`bin/dataset-sync.mjs\` (Node loading the CLI bundle out/cli/main.mjs); "engine" is summary.durationMs; "disk check" is the check of every recorded file at the start of each sync (one lstat per file, nothing hashed; summary.diskCheck.durationMs), part of the engine time. Requests are counted by the service. The last row deletes one media file and runs a plain sync: the check finds it, its set is fetched again and only that file downloaded. ${bodiesLine(svc, false)} Every run with the product's defaults, the media check included.`,
      '',
      ...table(['run', 'process wall (s)', 'engine (s)', 'disk check (ms)', 'requests', 'page requests', 'bytes hashed', 'peak RSS MB'], rows),
      '',
      `Routes of the last no-op: \`${JSON.stringify(noop.at(-1)?.routes)}\`; of the last --full: \`${JSON.stringify(full.at(-1)?.routes)}\`.`,
    ];
    return {
      section: {
        title: 'Scenario 3: metadata scale (10,000 sets already on disk)',
        body,
        targets: [
          { name: 'S3 no-op wall time (process, median)', measured: `${fmt(noopWall / 1000)} s (engine ${fmt(noopEngine / 1000)} s)`, target: '< 1 s', met: noopWall < 1000 },
          { name: 'S3 no-op requests', measured: String(noopReq), target: `1-2 + ${STATUS_QUERIES} (one per other set status)`, met: noopReq <= 2 + STATUS_QUERIES },
          { name: 'S3 no-op bytes hashed', measured: String(noopHashed), target: '0', met: noopHashed === 0 },
          { name: 'S3 no-op disk check (every recorded file, median)', measured: `${fmt(noopCheckMs, 0)} ms for ${checkedFiles} files`, target: 'within the 1 s no-op', met: noopCheckMs < 1000 && checkedFiles === sets * 4 },
          { name: 'S3 heal 1 deleted file: requests', measured: String(healStats.requests), target: `<= 4 (collection, page, set, file) + ${STATUS_QUERIES}`, met: healStats.requests <= 4 + STATUS_QUERIES },
          { name: 'S3 --full page requests (per_page 200)', measured: String(fullPages), target: `<= 50 + ${STATUS_QUERIES} (one per other set status)`, met: fullPages <= 50 + STATUS_QUERIES },
        ],
      },
      rssKb: [initial, ...noop.map((n) => n.run), ...full.map((f) => f.run)].map((r) => r.maxRssKb ?? NaN),
      bySetCount,
    };
  } finally {
    await svc.stop();
    await dropDest(dest);
  }
}

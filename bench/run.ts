// `npm run bench [-- --quick] [--only 1,3] [--reps N] [--out FILE]`; scenario 7 (WAN link, ~20 min) runs only when named in --only;
// so does scenario 9 (scale: files of 1 KiB from the lazy service at each size of BENCH_SCALE_FILES, a comma-separated list,
// default 400,000 and 1,000,000 files = 100,000 sets and a million files; over an hour at a million);
// scenario 8 (into a Ceph RGW bucket) runs when Ceph is installed, else it is reported as skipped.
// Runs the scenarios of the performance issue against the reference service (in a child
// process), prints a markdown report and, for a complete full-size run, writes bench/RESULTS.md
// (with bench/NOTES.md, the hand-written analysis, appended). Our CLI runs as users get it: every
// default feature on, the media check included, on real video bodies where the scenario is about
// videos; engine settings in this process's environment (DATASET_SYNC_*) are not passed on, and a
// run that turns a feature off says so in its row's name (bench/NOTES.md, "The product's defaults").
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { table, type BenchContext, type Section, type TargetCheck } from './lib/context';
import { describeMachine, measureLimits } from './lib/machine';
import { REPO_ROOT } from './lib/service';
import { fmt } from './lib/stats';
import { scenarioMetadata } from './scenarios/metadata';
import { scenarioResume } from './scenarios/resume';
import { scenarioBulk, scenarioSmall } from './scenarios/transfer';
import { scenarioWan } from './scenarios/wan';
import { scenarioBucket } from './scenarios/bucket';
import { scaleSizes, scenarioScale } from './scenarios/scale';
import { inheritedEngineSettings } from './lib/peers';
import { CEPH_MISSING } from '../test/support/ceph-rgw';

const { values } = parseArgs({
  options: { quick: { type: 'boolean' }, only: { type: 'string' }, reps: { type: 'string' }, out: { type: 'string' } },
  allowPositionals: false,
});
const quick = values.quick === true;
const only = values.only ? new Set(values.only.split(',').map((s) => Number(s.trim()))) : new Set([1, 2, 3, 4, 5, 6, 8]);
// Scenarios 5 and 6 are read off the runs of 1+3 and 2.
if (only.has(5)) {
  only.add(1);
  only.add(3);
}
if (only.has(6)) only.add(2);
const reps = values.reps ? Number(values.reps) : quick ? 1 : 3;
const complete = !quick && only.size === 7 && !values.reps;

const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dataset-sync-bench-'));
await fs.chmod(workDir, 0o700);
const ctx: BenchContext = {
  quick,
  reps,
  workDir,
  dataDir: path.join(os.tmpdir(), 'dataset-sync-bench-data'),
  log: (l) => process.stderr.write(`${l}\n`),
};

const ignored = inheritedEngineSettings();
if (ignored.length > 0) ctx.log(`Not passed on to our CLI (the bench runs the product's defaults): ${ignored.join(', ')}`);
const started = performance.now();
const sections: Section[] = [];
const targets: TargetCheck[] = [];
const add = (s: Section) => {
  sections.push(s);
  targets.push(...s.targets);
};
try {
  const machine = describeMachine(workDir);
  ctx.log('Measuring machine limits (dd, sha256)...');
  const limits = await measureLimits(workDir, quick);
  let bulk, small, meta;
  if (only.has(1)) add((bulk = await scenarioBulk(ctx)).section);
  if (only.has(2)) add((small = await scenarioSmall(ctx)).section);
  if (only.has(3)) add((meta = await scenarioMetadata(ctx)).section);
  if (only.has(4)) add(await scenarioResume(ctx));
  if (only.has(7)) add(await scenarioWan(ctx));
  if (only.has(9)) for (const files of scaleSizes(quick)) add(await scenarioScale(ctx, files));
  if (only.has(8)) {
    if (CEPH_MISSING) add({ title: 'Scenario 8: into object storage', body: [`Skipped: ${CEPH_MISSING}.`], targets: [] });
    else add(await scenarioBucket(ctx));
  }
  if (only.has(5) && bulk && meta) {
    const peak = Math.max(bulk.oursRssKb, ...meta.rssKb) / 1024;
    add({
      title: 'Scenario 5: memory (peak RSS of the sync process)',
      body: table(
        ['run', 'peak RSS MB'],
        [
          ['S1 bulk, full file size (median)', fmt(bulk.oursRssKb / 1024, 0)],
          ['S1 bulk, half file size', fmt((bulk.halfRssKb ?? NaN) / 1024, 0)],
          ['S3 metadata, heaviest run', fmt(Math.max(...meta.rssKb) / 1024, 0)],
          ...meta.bySetCount.flatMap((m) => [
            [`S3 at ${m.sets} sets: initial sync (setup)`, fmt(m.initialKb / 1024, 0)],
            [`S3 at ${m.sets} sets: no-op re-sync`, fmt(m.noopKb / 1024, 0)],
            [`S3 at ${m.sets} sets: --full rescan`, fmt(m.fullKb / 1024, 0)],
          ]),
        ],
      ),
      targets: [
        { name: 'S5 peak RSS (S1 and S3)', measured: `${fmt(peak, 0)} MB`, target: '< 200 MB', met: peak < 200 },
        {
          name: 'S5 RSS full vs half file size',
          measured: `${fmt(bulk.oursRssKb / 1024, 0)} vs ${fmt((bulk.halfRssKb ?? NaN) / 1024, 0)} MB`,
          target: 'not growing (within 15%)',
          met: bulk.halfRssKb !== undefined && bulk.oursRssKb <= bulk.halfRssKb * 1.15,
        },
        ...(['noopKb', 'fullKb'] as const).map((k) => {
          const [small, large] = meta.bySetCount;
          return {
            name: `S5 RSS ${large!.sets} vs ${small!.sets} sets (${k === 'noopKb' ? 'no-op' : '--full'})`,
            measured: `${fmt(large![k] / 1024, 0)} vs ${fmt(small![k] / 1024, 0)} MB`,
            target: 'not growing (within 15%)',
            met: large![k] <= small![k] * 1.15,
          };
        }),
      ],
    });
  }
  if (only.has(6) && small) {
    add({
      title: 'Scenario 6: progress cost during scenario 2',
      body: [
        `All --json events: ${fmt(small.eventsPerSecond, 0)}/s (file and set events included). \`progress\` events: ${fmt(small.progressPerSecond)}/s.`,
        `The desktop batching (\`createEventBatcher\` of src-main/app/event-batcher.ts, fed the same event stream live) would send ${fmt(small.batchPerSecond)} IPC messages/s.`,
      ],
      targets: [
        { name: 'S6 progress events per second', measured: fmt(small.progressPerSecond), target: '<= 10/s', met: small.progressPerSecond <= 10 },
        { name: 'S6 desktop IPC batches per second', measured: fmt(small.batchPerSecond), target: 'a few a second', met: small.batchPerSecond <= 10 },
      ],
    });
  }

  const out: string[] = [
    '# Benchmark results',
    '',
    `Generated by \`npm run bench${quick ? ' -- --quick' : ''}\` (bench/run.ts)${quick ? ' - QUICK smoke run, small sizes, not the reference figures' : ''}. Total bench time ${fmt((performance.now() - started) / 1000 / 60, 1)} min.`,
    '',
    '## Machine',
    ...machine,
    `- Raw disk write, \`dd bs=1M count=${quick ? 256 : 2048} conv=fdatasync\`: **${fmt(limits.ddMBps, 0)} MB/s**; without fdatasync (page cache): ${fmt(limits.ddNoSyncMBps, 0)} MB/s`,
    `- SHA-256 on one core (Node crypto, 256 MiB buffer): **${fmt(limits.sha256MBps, 0)} MB/s**`,
    '- Page cache: not dropped (no privilege to drop caches is assumed); the service reads its bodies from a warm cache in every run (a warm-up pass comes first), and each run writes into a fresh folder that is deleted and `sync`ed afterwards, untimed.',
    '- The reference service runs in its own child process; "CPU s" and "peak RSS" are those of the measured programs only (GNU time -v).',
    `- Our CLI runs with the product's defaults, every default feature on (the media check included); only rows named so turn one off.${ignored.length > 0 ? ` Engine settings in the bench's environment were not passed on: ${ignored.join(', ')}.` : ''}`,
    '',
    '## Targets',
    ...table(
      ['target', 'measured', 'wanted', 'met'],
      targets.map((t) => [t.name, t.measured, t.target, t.met === null ? 'reported' : t.met ? 'yes' : '**no**']),
    ),
    '',
  ];
  for (const s of sections) out.push(`## ${s.title}`, '', ...s.body, '');
  const report = out.join('\n');
  process.stdout.write(report + '\n');
  const target = values.out ?? (complete ? path.join(REPO_ROOT, 'bench/RESULTS.md') : undefined);
  if (target) {
    const notes = await fs.readFile(path.join(REPO_ROOT, 'bench/NOTES.md'), 'utf8').catch(() => '');
    await fs.writeFile(target, report + (notes ? `\n${notes}` : ''));
    ctx.log(`wrote ${target}`);
  }
} finally {
  await fs.rm(workDir, { recursive: true, force: true });
}

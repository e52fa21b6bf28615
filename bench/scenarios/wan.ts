// Scenario 7 (opt-in: `npm run bench -- --only 7`): the transfer workloads over an emulated WAN
// link (bench/lib/link.ts; model in bench/NOTES.md) at 20 ms / 1 Gbit/s and 80 ms / 200 Mbit/s.
// Ours (default settings, concurrency 4), aria2c -j4 and 4 parallel curls go through the same
// link in the same run, in rotating order. The service sits behind the link and names the
// link's origin in its URLs, so every request of every tool crosses it.
import { closedLoopbackPort } from '../../test/support/closed-port';
import { startLink, type Link, type LinkStats } from '../lib/link';
import { table, type BenchContext, type Section, type TargetCheck } from '../lib/context';
import { runAria2, runOurs, runRawCurl, type PeerRun } from '../lib/peers';
import { startBenchService, type BenchFile, type BenchService } from '../lib/service';
import { fmt, MB, median, MiB } from '../lib/stats';
import { compare } from './transfer';

interface LinkCase {
  rttMs: number;
  rateMbit: number;
}

interface Workload {
  name: string;
  sets: number;
  fileSize: number;
}

export const WAN_LINKS: LinkCase[] = [
  { rttMs: 20, rateMbit: 1000 },
  { rttMs: 80, rateMbit: 200 },
];

function workloads(quick: boolean): Workload[] {
  // Full size: 32 x 16 MiB and 2,000 x 64 KiB (4 slots per set). Quick: a smoke run.
  return quick
    ? [
        { name: 'bulk', sets: 2, fileSize: 2 * MiB },
        { name: 'small files', sets: 25, fileSize: 64 * 1024 },
      ]
    : [
        { name: 'bulk', sets: 8, fileSize: 16 * MiB },
        { name: 'small files', sets: 500, fileSize: 64 * 1024 },
      ];
}

interface CaseResult {
  link: LinkCase;
  workload: Workload;
  files: number;
  bytes: number;
  medians: Record<string, number>;
  runs: Record<string, number[]>;
  /** Our requests by route (median run), e.g. {"GET /files/:id": 2000, ...}. */
  oursRequests: Record<string, number>;
  /** Connections each tool opened through the link (median). */
  connections: Record<string, number>;
}

const OURS = 'ours';
const ARIA = 'aria2c -j4 + sha-256';
const CURL = '4x curl (no verify)';

export async function scenarioWan(ctx: BenchContext): Promise<Section> {
  const results: CaseResult[] = [];
  for (const workload of workloads(ctx.quick)) {
    for (const link of WAN_LINKS) results.push(await runCase(ctx, link, workload));
  }

  const rows = results.flatMap((r) =>
    Object.keys(r.medians).map((tool) => [
      `${r.files} x ${fmtSize(r.workload.fileSize)} at ${r.link.rttMs} ms, ${r.link.rateMbit} Mbit/s`,
      tool,
      r.runs[tool]!.map((ms) => (ms / 1000).toFixed(2)).join(', '),
      fmt(r.medians[tool]! / 1000),
      fmt(r.bytes / MB / (r.medians[tool]! / 1000), 0),
      fmt(r.connections[tool], 0),
      fmt(r.medians[tool]! / r.medians[OURS]!),
    ]),
  );
  const summary = results.map((r) => {
    const floor = lineRateMs(r);
    return [
      `${r.files} x ${fmtSize(r.workload.fileSize)} at ${r.link.rttMs} ms, ${r.link.rateMbit} Mbit/s`,
      fmt(r.medians[OURS]! / 1000),
      fmt(r.medians[ARIA]! / 1000),
      fmt(r.medians[OURS]! / r.medians[ARIA]!),
      fmt(r.medians[OURS]! / r.medians[CURL]!),
      `${fmt(floor / 1000)} (${fmt(r.medians[OURS]! / floor)}x)`,
      Object.entries(r.oursRequests)
        .sort((a, b) => b[1] - a[1])
        .map(([route, n]) => `${route}: ${n}`)
        .join('; '),
    ];
  });

  const find = (kind: string, rtt: number) => results.find((r) => r.workload.name === kind && r.link.rttMs === rtt);
  const targets: TargetCheck[] = [];
  const small80 = find('small files', 80);
  if (small80) {
    const ratio = small80.medians[OURS]! / small80.medians[ARIA]!;
    targets.push({ name: 'S7 small files at 80 ms, HTTP/1.1: ours vs aria2c -j4', measured: `${fmt(ratio)}x`, target: '<= 0.5x', met: ratio <= 0.5 });
  }
  const bulk80 = find('bulk', 80);
  if (bulk80) {
    const ratio = bulk80.medians[OURS]! / lineRateMs(bulk80);
    targets.push({ name: 'S7 bulk at 80 ms: ours vs line-rate floor', measured: `${fmt(ratio)}x`, target: '<= 1.05x', met: ratio <= 1.05 });
  }
  const bulk20 = find('bulk', 20);
  if (bulk20) {
    const ratio = bulk20.medians[OURS]! / bulk20.medians[CURL]!;
    targets.push({ name: 'S7 bulk at 20 ms: ours vs 4 parallel curls', measured: `${fmt(ratio)}x`, target: '<= 1.00x', met: ratio <= 1 });
  }

  return {
    title: 'Scenario 7: WAN link (emulated; bench/lib/link.ts)',
    body: [
      `${ctx.reps} repetition(s), medians; every tool through the same emulated link in the same run. Ours runs with its defaults (concurrency 4) over HTTP/1.1. Line-rate floor: bytes / rate, without handshakes or slow start.`,
      '',
      ...table(['case', 'ours (s)', 'aria2c -j4 (s)', 'ours/aria2c', 'ours/4x curl', 'line-rate floor (s)', 'our requests by kind'], summary),
      '',
      ...table(['case', 'tool', 'runs (s)', 'median (s)', 'MB/s', 'connections', 'time vs ours'], rows),
    ],
    targets,
  };
}

async function runCase(ctx: BenchContext, linkCase: LinkCase, workload: Workload): Promise<CaseResult> {
  ctx.log(`Scenario 7: ${workload.sets * 4} x ${fmtSize(workload.fileSize)} at ${linkCase.rttMs} ms, ${linkCase.rateMbit} Mbit/s`);
  const link = await startLink(linkCase);
  let svc: BenchService | undefined;
  try {
    // The service listens on a port of its own and names the link's origin in every URL.
    const port = await closedLoopbackPort();
    link.targetPort = port;
    svc = await startBenchService({ sets: workload.sets, fileSize: workload.fileSize, dataDir: ctx.dataDir, port, publicOrigin: link.origin });
    const service = svc;
    const files = await service.files();
    const bytes = files.reduce((a, f) => a + f.sizeBytes, 0);
    // Warm the service's page cache past the link (its time is not what we measure).
    await runRawCurl(direct(files, link, port), '/dev/null', ctx.workDir, service.apiKey, 4, true);

    const connections: Record<string, number[]> = { [OURS]: [], [ARIA]: [], [CURL]: [] };
    const requests: Array<Record<string, number>> = [];
    const counted =
      (name: string, run: (dest: string) => Promise<PeerRun>) =>
      async (dest: string): Promise<PeerRun> => {
        await service.resetStats();
        const before = link.stats();
        const r = await run(dest);
        connections[name]!.push(delta(before, link.stats()).connections);
        if (name === OURS) requests.push((await service.stats()).byRoute);
        return r;
      };
    const stats = await compare(
      ctx,
      {
        [OURS]: counted(OURS, (d) => runOurs(service, d)),
        [ARIA]: counted(ARIA, (d) => runAria2(files, d, ctx.workDir, service.apiKey, 4)),
        [CURL]: counted(CURL, (d) => runRawCurl(files, d, ctx.workDir, service.apiKey, 4)),
      },
      ctx.reps,
    );
    const medians = Object.fromEntries(Object.entries(stats).map(([n, s]) => [n, s.medianMs]));
    const runs = Object.fromEntries(Object.entries(stats).map(([n, s]) => [n, s.runs.map((r) => r.wallMs)]));
    const medianRun = stats[OURS]!.runs.map((r) => r.wallMs).indexOf(nearest(runs[OURS]!, medians[OURS]!));
    return {
      link: linkCase,
      workload,
      files: files.length,
      bytes,
      medians,
      runs,
      oursRequests: requests[medianRun] ?? {},
      connections: Object.fromEntries(Object.entries(connections).map(([n, c]) => [n, median(c)])),
    };
  } finally {
    await svc?.stop();
    await link.close();
  }
}

/** The same files addressed to the service itself rather than through the link. */
function direct(files: BenchFile[], link: Link, port: number): BenchFile[] {
  return files.map((f) => ({ ...f, url: f.url.replace(link.origin, `http://127.0.0.1:${port}`) }));
}

function delta(a: LinkStats, b: LinkStats): LinkStats {
  return { connections: b.connections - a.connections, bytesToServer: b.bytesToServer - a.bytesToServer, bytesToClient: b.bytesToClient - a.bytesToClient, idleRestarts: b.idleRestarts - a.idleRestarts };
}

function nearest(values: number[], target: number): number {
  return values.reduce((best, v) => (Math.abs(v - target) < Math.abs(best - target) ? v : best), values[0] ?? NaN);
}

function lineRateMs(r: CaseResult): number {
  return ((r.bytes * 8) / (r.link.rateMbit * 1e6)) * 1000;
}

function fmtSize(bytes: number): string {
  return bytes >= MiB ? `${bytes / MiB} MiB` : `${bytes / 1024} KiB`;
}

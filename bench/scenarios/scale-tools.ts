// Scenario 9's tools besides our CLI (scale.ts): the curl configs of the collection's URLs, the
// peers (4 curls, the two Node floors), the folders each tool writes into (ToolCopies, and how
// many rounds the disk has room for), and what a run shared the machine with.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { dropDest, freshDest, type BenchContext } from '../lib/context';
import { machineStealSeconds, processCpuSeconds, runGroup, runProc } from '../lib/proc';
import type { BenchService } from '../lib/service';
import { fmt } from '../lib/stats';
import { consentRequests, requestsPerSlot } from '../../src-main/sync/sync-pools';

export const STREAMS = 4;
const PER_PAGE = 200;
/** Copies a scale run makes besides the rounds' pairs: the curls with the consents and the two Node floors. */
export const PEER_COPIES = 3;

function q(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}


export interface CurlConfigs {
  /** One config per stream: the files only. */
  files: string[];
  /** One config per stream: the files and every participant's consent. */
  withConsents: string[];
  fileCount: number;
  consentCount: number;
}

/**
 * Walks the collection's feed (untimed) and writes two sets of curl configs, one config per
 * stream, URLs dealt round-robin, outputs relative to the folder the tool runs in, as our layout
 * names them (sets/<set id>/<filename>, consents under consents/<set id>/): each tool gets a
 * folder of its own (ToolCopies). The URLs are streamed to disk page by page, so the bench holds no
 * list of a million files.
 */
export async function writeCurlConfigs(svc: BenchService, work: string): Promise<CurlConfigs> {
  const files = Array.from({ length: STREAMS }, (_, i) => path.join(work, `scale-curl-${i}.cfg`));
  const withConsents = Array.from({ length: STREAMS }, (_, i) => path.join(work, `scale-curl-consents-${i}.cfg`));
  const head = ['silent', 'show-error', 'fail', 'create-dirs', `header = ${q(`Authorization: Bearer ${svc.apiKey}`)}`].join('\n') + '\n';
  for (const cfg of [...files, ...withConsents]) await fs.writeFile(cfg, head, { mode: 0o600 });
  const entry = (url: string, output: string) => `url = ${q(url)}\noutput = ${q(output)}\n`;
  let fileCount = 0;
  let consentCount = 0;
  for (let page = 1; ; page++) {
    const res = await fetch(`${svc.deliveryBaseUrl}/collections/${svc.collectionId}/sets?per_page=${PER_PAGE}&page=${page}`, { headers: { authorization: `Bearer ${svc.apiKey}` } });
    if (!res.ok) throw new Error(`listing page ${page}: HTTP ${res.status}`);
    const body = (await res.json()) as {
      sets: Array<{ id: number; files: Array<{ url: string; filename: string }>; participants: Array<{ participant_ref: string; consent: { url: string } | null }> }>;
      has_more: boolean;
    };
    const fileChunks: string[] = Array.from({ length: STREAMS }, () => '');
    const bothChunks: string[] = Array.from({ length: STREAMS }, () => '');
    let both = fileCount + consentCount;
    for (const set of body.sets) {
      for (const f of set.files) {
        const line = entry(f.url, path.join('sets', String(set.id), f.filename));
        fileChunks[fileCount++ % STREAMS] += line;
        bothChunks[both++ % STREAMS] += line;
      }
      for (const p of set.participants) {
        if (!p.consent) continue;
        bothChunks[both++ % STREAMS] += entry(p.consent.url, path.join('consents', String(set.id), `${p.participant_ref}.json`));
        consentCount++;
      }
    }
    for (let i = 0; i < STREAMS; i++) {
      if (fileChunks[i]) await fs.appendFile(files[i]!, fileChunks[i]!);
      if (bothChunks[i]) await fs.appendFile(withConsents[i]!, bothChunks[i]!);
    }
    if (!body.has_more) break;
  }
  return { files, withConsents, fileCount, consentCount };
}

/** 4 curl processes over the given configs (each keeping its connection), into `dest` (their working folder). */
export async function runCurls(ctx: BenchContext, configs: string[], dest: string, label: string) {
  const curl = await runGroup(
    configs.map((cfg) => ({ cmd: 'curl', args: ['-K', cfg] })),
    { cwd: dest },
  );
  const failed = curl.results.find((r) => r.exitCode !== 0);
  const rssKb = Math.max(...curl.results.map((r) => r.maxRssKb ?? 0));
  const cpuS = curl.results.reduce((sum, r) => sum + (r.userS ?? NaN) + (r.sysS ?? NaN), 0);
  ctx.log(`  4x curl, ${label}: ${fmt(curl.wallMs / 1000, 1)} s${failed ? ` FAILED ${failed.stderrTail.slice(-200)}` : ''}`);
  return { wallMs: curl.wallMs, failed: failed !== undefined, rssKb, cpuS };
}

/**
 * One of the two Node floors, run with as many requests in flight as our engine keeps for small
 * files over HTTP/1.1 (the sizes of its two pools, sync-pools.ts createSyncPools, at --concurrency
 * STREAMS: transfers and consents; not the walk's); what it wrote to `dest` is deleted after.
 * - the bare Node client (bench/lib/node-floor.mjs) over the given curl configs;
 * - the contract's floor (bench/lib/contract-floor.mjs): the walk, set.json, the verified files by
 *   temp file and rename, the consent records, a state row per file, manifest.csv and SHA256SUMS,
 *   as plainly as a client can, into `dest` and its consents folder.
 * Either runs in `dest` (the curl configs' outputs are relative to it).
 */
export async function runFloor(ctx: BenchContext, label: string, script: string, args: string[], dest: string, env?: NodeJS.ProcessEnv) {
  const inFlight = STREAMS * requestsPerSlot(false) + consentRequests(false);
  const r = await runProc(process.execPath, [script, String(inFlight), ...args], { cwd: dest, env });
  const failed = r.exitCode !== 0;
  ctx.log(`  ${label}: ${fmt(r.wallMs / 1000, 1)} s${failed ? ` FAILED ${r.stderrTail.slice(-200)}` : ''}`);
  return { wallMs: r.wallMs, failed, rssKb: r.maxRssKb ?? NaN, cpuS: (r.userS ?? NaN) + (r.sysS ?? NaN), inFlight };
}


/**
 * The tools' folders, one each. Deleting a copy of 100,000s of files slows whatever creates
 * files next on ext4 without a journal (these machines' root file system) for minutes: once an
 * inode-table block is cached and dirty, `recently_deleted()` (fs/ext4/ialloc.c) skips each inode
 * of it freed in the last 360 s, and the allocator passes over them. Dropping the caches does not
 * end it: the next tool's own new inodes dirty those blocks again. By hand at a million files our
 * first sync took 437 s right after such a deletion and 330 s half an hour before without one,
 * though its user time rose with its system time (bench/NOTES.md). So every copy is kept until
 * the scenario ends when the disk has room for all of them (blocks and inodes, statfs); else, as
 * before, each is deleted before the next tool runs, and the notes say which.
 */
export class ToolCopies {
  private readonly dests: string[] = [];
  private keepAll: boolean | undefined;

  constructor(
    private readonly ctx: BenchContext,
    private readonly files: number,
    /** How many copies the scenario makes. */
    private readonly count: number,
  ) {}

  /** A fresh folder for the next tool (the last one's deleted first when they cannot all be kept). */
  async next(): Promise<string> {
    this.keepAll ??= await roomForCopies(this.ctx.workDir, this.files, this.count);
    if (!this.keepAll) await this.dropAll();
    const dest = await freshDest(this.ctx);
    this.dests.push(dest);
    return dest;
  }

  async dropAll(): Promise<void> {
    for (const dest of this.dests.splice(0)) await dropDest(dest);
  }

  /** For the notes: how the copies were handled. */
  describe(): string {
    return this.keepAll === false
      ? 'each tool\'s copy was deleted before the next tool ran: the disk had no room to keep them all, so the tools after a deletion paid for it (ToolCopies)'
      : 'each tool wrote into a folder of its own, and every copy was kept until the end of the scenario: no first sync ran just after a deletion of many files (ToolCopies)';
  }
}

/**
 * Whether `copies` copies of `files` 1 KiB files fit on the disk of `dir` at once, with a quarter to
 * spare: a block and an inode per file, half as many consent records, a folder per set in each.
 */
async function roomForCopies(dir: string, files: number, copies: number): Promise<boolean> {
  const st = await fs.statfs(dir).catch(() => null);
  if (!st) return false;
  const blocksPerCopy = Math.ceil((files * 2 * 4096) / st.bsize);
  const inodesPerCopy = files * 2;
  return st.bavail >= blocksPerCopy * copies * 1.25 && (st.files === 0 || st.ffree >= inodesPerCopy * copies * 1.25);
}

/**
 * Rounds of the first syncs the targets compare (`perRound` copies each: the 4 curls over the
 * files, ours, and ours with a feature off): up to `wanted`, fewer when the disk cannot keep every
 * copy of them and of the other peers at once (a million files: one), since a copy deleted just
 * before a first sync would slow it (ToolCopies).
 */
export async function firstSyncRounds(dir: string, files: number, wanted: number, perRound: number): Promise<number> {
  let rounds = wanted;
  while (rounds > 1 && !(await roomForCopies(dir, files, PEER_COPIES + perRound * rounds))) rounds--;
  return rounds;
}

/** The run whose wall time is the median (the lower middle of an even count). */
export function medianRun<T>(runs: T[], wallMs: (r: T) => number): T {
  return [...runs].sort((a, b) => wallMs(a) - wallMs(b))[Math.floor((runs.length - 1) / 2)]!;
}

/** Apparent size of everything under `dir` (du -sb), NaN when du fails. */
export async function bytesUnder(dir: string): Promise<number> {
  let total = NaN;
  const r = await runProc('du', ['-sb', dir], { measure: false, onStdoutLine: (line) => (total = Number(line.split('\t')[0])) });
  return r.exitCode === 0 ? total : NaN;
}

export async function sizeOf(file: string): Promise<number> {
  return fs.stat(file).then((s) => s.size).catch(() => NaN);
}

/** What a timed run shared the machine with: the service's CPU seconds and the hypervisor's steal meanwhile. */
export interface MachineShare {
  serviceCpuS: number;
  stealS: number;
}

/**
 * Runs `run` and adds the reference service's CPU seconds meanwhile: on these 2-core machines the
 * wall time of a first sync follows the CPU of both processes (bench/NOTES.md, "Wall time follows
 * CPU"), so each tool's run is shown with what it cost the service too; and the machine's steal
 * time meanwhile (machineStealSeconds), which a run on a shared VM loses besides.
 */
export async function withMachineShare<T extends object>(svc: BenchService, run: () => Promise<T>): Promise<T & MachineShare> {
  const before = await processCpuSeconds(svc.pid);
  const stealBefore = await machineStealSeconds();
  const result = await run();
  return Object.assign(result, { serviceCpuS: (await processCpuSeconds(svc.pid)) - before, stealS: (await machineStealSeconds()) - stealBefore });
}

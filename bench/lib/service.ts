// The reference service in a child process, plus the file list every peer downloads.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { AdminClient, type StatsSnapshot } from '../../src-service/admin-client';
import type { VideoBodiesInfo } from '../../src-service/index';
import { fetchTrusting } from '../../src-service/tls/secure-server';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface BenchFile {
  url: string;
  /** Relative to DEST, as our layout and the peers' output use it: sets/<set>/<filename>. */
  relPath: string;
  sizeBytes: number;
  sha256: string;
}

export interface BenchService {
  deliveryBaseUrl: string;
  apiKey: string;
  collectionId: number;
  pid: number;
  admin: AdminClient;
  /** What the bodies are when the spec asked for real videos (how they were made, the clip's share of each). */
  videoBodies?: VideoBodiesInfo;
  files(): Promise<BenchFile[]>;
  stats(): Promise<StatsSnapshot>;
  resetStats(): Promise<void>;
  stop(): Promise<void>;
}

export interface ServiceSpec {
  sets: number;
  fileSize: number;
  slots?: number;
  /** Cache of generated bodies, reused between bench runs. */
  dataDir: string;
  /** Listening port (default: any free one) and the origin its URLs name, for a link emulator in front (bench/lib/link.ts). */
  port?: number;
  publicOrigin?: string;
  /** Large-collection mode: the sets are generated on request (src-service/lazy-collection.ts); fileSize at most 64 KiB. */
  lazy?: boolean;
  /** HTTPS + HTTP/2 mode (src-service/tls); the admin client trusts `ca`. */
  tls?: { key: string; cert: string; ca: string };
  /**
   * Real videos of exactly `fileSize` bytes instead of synthetic bodies (src-service/video-bodies.ts):
   * for the scenarios whose workload is videos, so the media check reads what users sync. Not with `lazy`.
   */
  videoBodies?: boolean;
}

export async function startBenchService(spec: ServiceSpec): Promise<BenchService> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'bench/service-child.ts'), JSON.stringify({ ...spec, seed: 42 })], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise<{ deliveryBaseUrl: string; adminBaseUrl: string; adminToken: string; apiKey: string; collectionId: number; videoBodies?: VideoBodiesInfo }>((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout! });
    rl.once('line', (line) => resolve(JSON.parse(line)));
    child.once('exit', (code) => reject(new Error(`reference service exited early (code ${code})`)));
  });
  const admin = new AdminClient(info.adminBaseUrl, info.adminToken, spec.tls && fetchTrusting(spec.tls.ca));
  return {
    deliveryBaseUrl: info.deliveryBaseUrl,
    apiKey: info.apiKey,
    collectionId: info.collectionId,
    pid: child.pid!,
    admin,
    ...(info.videoBodies ? { videoBodies: info.videoBodies } : {}),
    async files() {
      const state = await admin.state();
      const c = state.collections.find((x) => x.id === info.collectionId);
      if (!c) throw new Error(`collection ${info.collectionId} missing from the admin state`);
      return c.accepted_sets.flatMap((s) =>
        s.files.map((f) => ({ url: `${info.deliveryBaseUrl}/files/${f.id}`, relPath: `sets/${s.id}/${f.filename}`, sizeBytes: f.size_bytes, sha256: f.sha256 })),
      );
    },
    stats: () => admin.stats(),
    resetStats: () => admin.resetStats(),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * What the bodies of a scenario's service are, for its text: real videos (and how they were
 * made) or synthetic bytes. `peers`: whether other tools download them too.
 */
export function bodiesLine(svc: BenchService, peers = true): string {
  const v = svc.videoBodies;
  if (!v) return 'Bodies: synthetic bytes listed as videos (not decodable: the media check reads their first bytes and records them as unreadable).';
  const m = v.media;
  const made = v.source === 'ffmpeg' ? 'an H.264 MP4 made once by ffmpeg at about that size, moov at the end as cameras write it' : 'ffmpeg was missing, so the smallest clean demo MP4 (src-service/media), mostly padding';
  return `Bodies: real videos of ${v.fileSize} bytes each (src-service/video-bodies.ts): ${made} (${m.codec} ${m.width}x${m.height}, ${m.fps} fps, ${m.duration} s; ${fmtPct(v.clipBytes / v.fileSize)} of each file), then a \`free\` box with the file's own stamp and the padding${peers ? '; the peers download the same bytes' : ''}.`;
}

function fmtPct(x: number): string {
  return `${(x * 100).toFixed(1)} %`;
}

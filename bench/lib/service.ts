// The reference service in a child process, plus the file list every peer downloads.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { AdminClient, type StatsSnapshot } from '../../src-service/admin-client';
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
}

export async function startBenchService(spec: ServiceSpec): Promise<BenchService> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'bench/service-child.ts'), JSON.stringify({ ...spec, seed: 42 })], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise<{ deliveryBaseUrl: string; adminBaseUrl: string; adminToken: string; apiKey: string; collectionId: number }>((resolve, reject) => {
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

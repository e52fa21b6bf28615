// A real S3 store for the tests: a single-node Ceph cluster (one monitor, one memstore OSD, no
// manager) with a radosgw on a free loopback port, all under one throw-away folder and stopped
// by the PIDs its daemons write (/work/shared/CEPH-RGW.md has the facts this follows).
//
// - Every daemon has its own `keyring` line in its own section: a `keyring` in [global] makes
//   `ceph-osd --mkkey` overwrite the admin keyring, and then nothing authenticates.
// - Every `ceph` call is bounded (`timeout` + `--connect-timeout`): a CLI that cannot
//   authenticate otherwise waits 300 s.
// - `ceph-osd --mkfs` needs `--no-mon-config` (else "failed to fetch mon config").
// - The OSD's objects live in its memory (memstore): restarting only radosgw keeps them, which
//   is how a gateway dying mid-upload is tested (stopGateway/startGateway).
//
// One cluster per test file: vitest runs two files at once, so every port is picked free and
// every file lives in the file's own temp folder. Where the Ceph binaries are missing the
// tests using it report themselves skipped with the reason (needsCeph), like the keychain tests.
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import { delimiter, join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

const BINARIES = ['ceph', 'ceph-mon', 'ceph-osd', 'radosgw', 'radosgw-admin', 'ceph-authtool', 'monmaptool', 'timeout'];

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function missingCeph(): string | null {
  const missing = BINARIES.filter((b) => !onPath(b));
  if (missing.length > 0) return `no Ceph: ${missing.join(', ')} not installed (packages ceph-mon ceph-osd radosgw ceph-common)`;
  return null;
}

/** null when a Ceph RGW can be started here, else why not. */
export const CEPH_MISSING = missingCeph();

/** A test name that says why it is skipped when there is no Ceph. */
export function needsCeph(name: string): string {
  return CEPH_MISSING ? `${name} [skipped: ${CEPH_MISSING}]` : name;
}

export interface CephRgw {
  /** http://127.0.0.1:PORT */
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** The cluster's folder (config, logs, daemons' data). */
  readonly dir: string;
  /** Milliseconds from start to a working endpoint with its S3 user. */
  readonly startMs: number;
  /** Resident memory of the three daemons now, in bytes (from /proc). */
  memoryBytes(): number;
  /** Another S3 user (own keys, no access to the first user's buckets). */
  addUser(uid: string): Promise<{ accessKeyId: string; secretAccessKey: string }>;
  /** Kills radosgw only (SIGKILL: a gateway that dies); the objects stay in the OSD. */
  stopGateway(): Promise<void>;
  /** Starts radosgw again on the same port and waits until it answers. */
  startGateway(): Promise<void>;
  /** Stops every daemon and removes the folder. */
  stop(): Promise<void>;
}

async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port was assigned');
  return address.port;
}

function run(cmd: string, args: string[], timeoutS = 60): Promise<string> {
  // `timeout` bounds the call even when the tool ignores signals from node's own timer.
  return new Promise((resolve, reject) => {
    execFile('timeout', ['-k', '5', String(timeoutS), cmd, ...args], { maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')} failed (${err.code ?? err.signal}): ${stderr.trim().slice(-2000)}`));
      else resolve(stdout);
    });
  });
}

function config(dir: string, fsid: string, monPort: number, rgwPort: number): string {
  return `[global]
fsid = ${fsid}
mon host = 127.0.0.1:${monPort}
public addr = 127.0.0.1
ms bind ipv6 = false
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
pid file = ${dir}/run/$name.pid
log file = ${dir}/log/$name.log
mon data = ${dir}/mon-$id
osd data = ${dir}/osd-$id
osd objectstore = memstore
memstore device bytes = ${4 * 1024 ** 3}
osd max object size = ${1024 ** 3}
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
debug ms = 0
debug rgw = 0

[mon.a]
keyring = ${dir}/mon.keyring

[osd.0]
keyring = ${dir}/osd.keyring

[client.admin]
keyring = ${dir}/admin.keyring

[client.rgw.a]
keyring = ${dir}/rgw.keyring
rgw data = ${dir}/rgw
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
rgw enable usage log = false
`;
}

function pidOf(dir: string, name: string): number | null {
  try {
    const pid = Number(readFileSync(join(dir, 'run', `${name}.pid`), 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function killAndWait(pid: number | null, signal: NodeJS.Signals): Promise<void> {
  if (pid === null || !alive(pid)) return;
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + 10_000;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
  while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
}

async function answers(endpoint: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(endpoint + '/', { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      return;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`radosgw at ${endpoint} did not answer: ${String(e)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function rssBytes(pid: number | null): number {
  if (pid === null) return 0;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

const DAEMONS = ['client.rgw.a', 'osd.0', 'mon.a'];
const running = new Set<string>();
// A test process that dies leaves no cluster behind: its daemons are killed on the way out.
process.once('exit', () => {
  for (const dir of running) for (const name of DAEMONS) {
    const pid = pidOf(dir, name);
    if (pid !== null) spawnSync('kill', ['-9', String(pid)]);
  }
});

export async function startCephRgw(): Promise<CephRgw> {
  if (CEPH_MISSING) throw new Error(CEPH_MISSING);
  const started = Date.now();
  const dir = await mkdtemp(join(os.tmpdir(), 'ceph-rgw-'));
  running.add(dir);
  const [monPort, rgwPort] = [await freeLoopbackPort(), await freeLoopbackPort()];
  const fsid = randomUUID();
  const conf = join(dir, 'ceph.conf');
  const endpoint = `http://127.0.0.1:${rgwPort}`;
  const c = ['-c', conf];
  const ceph = (...args: string[]) => run('ceph', [...c, '--connect-timeout', '20', ...args], 40);
  try {
    await Promise.all(['run', 'log', 'osd-0', 'rgw'].map((d) => mkdir(join(dir, d), { recursive: true })));
    await writeFile(conf, config(dir, fsid, monPort, rgwPort));
    await run('ceph-authtool', ['--create-keyring', join(dir, 'mon.keyring'), '--gen-key', '-n', 'mon.', '--cap', 'mon', 'allow *']);
    await run('ceph-authtool', [
      '--create-keyring', join(dir, 'admin.keyring'), '--gen-key', '-n', 'client.admin',
      '--cap', 'mon', 'allow *', '--cap', 'osd', 'allow *', '--cap', 'mgr', 'allow *',
    ]);
    await run('ceph-authtool', [join(dir, 'mon.keyring'), '--import-keyring', join(dir, 'admin.keyring')]);
    await run('monmaptool', ['--create', '--add', 'a', `127.0.0.1:${monPort}`, '--fsid', fsid, join(dir, 'monmap')]);
    await run('ceph-mon', [...c, '--mkfs', '-i', 'a', '--monmap', join(dir, 'monmap'), '--keyring', join(dir, 'mon.keyring')]);
    await run('ceph-mon', [...c, '-i', 'a']);
    const id = (await ceph('osd', 'create')).trim();
    if (id !== '0') throw new Error(`ceph osd create answered ${id}, expected 0`);
    await run('ceph-osd', [...c, '-i', '0', '--mkfs', '--mkkey', '--no-mon-config']);
    await ceph('auth', 'add', 'osd.0', 'osd', 'allow *', 'mon', 'allow profile osd', '-i', join(dir, 'osd.keyring'));
    await run('ceph-osd', [...c, '-i', '0']);
    await ceph('auth', 'get-or-create', 'client.rgw.a', 'mon', 'allow rw', 'osd', 'allow rwx', '-o', join(dir, 'rgw.keyring'));
    await run('radosgw', [...c, '-n', 'client.rgw.a']);
    await answers(endpoint, 120_000);
    const addUser = async (uid: string) => {
      const keys = { accessKeyId: 'DSTEST' + randomBytes(7).toString('hex').toUpperCase(), secretAccessKey: randomBytes(20).toString('base64url') };
      await run('radosgw-admin', [
        ...c, '-n', 'client.admin', 'user', 'create', '--uid', uid, '--display-name', uid,
        '--access-key', keys.accessKeyId, '--secret', keys.secretAccessKey,
      ]);
      return keys;
    };
    const { accessKeyId, secretAccessKey } = await addUser('dataset-sync-test');
    const startMs = Date.now() - started;
    const gateway = {
      async stop() {
        await killAndWait(pidOf(dir, 'client.rgw.a'), 'SIGKILL');
        await rm(join(dir, 'run', 'client.rgw.a.pid'), { force: true });
      },
    };
    return {
      endpoint,
      accessKeyId,
      secretAccessKey,
      dir,
      startMs,
      addUser,
      memoryBytes: () => DAEMONS.reduce((sum, name) => sum + rssBytes(pidOf(dir, name)), 0),
      stopGateway: () => gateway.stop(),
      async startGateway() {
        await run('radosgw', [...c, '-n', 'client.rgw.a']);
        await answers(endpoint, 60_000);
      },
      async stop() {
        for (const name of DAEMONS) await killAndWait(pidOf(dir, name), 'SIGTERM');
        running.delete(dir);
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    const log = await readFile(join(dir, 'log', 'client.rgw.a.log'), 'utf8').catch(() => '');
    for (const name of DAEMONS) await killAndWait(pidOf(dir, name), 'SIGKILL');
    running.delete(dir);
    await rm(dir, { recursive: true, force: true });
    throw new Error(`${(e as Error).message}${log ? `\nradosgw log tail:\n${log.slice(-1500)}` : ''}`);
  }
}

/**
 * The tests' own S3 client for the gateway (the AWS SDK used directly, an independent check of
 * what the destination stored): path-style, checksums only where an operation requires them
 * (Ceph 16 does not understand the SDK's default CRC32 trailers).
 */
export function adminClient(rgw: CephRgw): S3Client {
  return new S3Client({
    endpoint: rgw.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Every key under `prefix` in `bucket`, page by page. */
export async function keysUnder(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const o of page.Contents ?? []) out.push(o.Key!);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out;
}

// Real network pieces for the network tests, all on loopback: the reference service in its
// HTTPS mode with a CA made for the run, Debian's tinyproxy and squid started from a config
// written by the test, and a child process that makes one request through createDispatcher.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { closedLoopbackPort } from '../support/closed-port';
import { createTestCertificates, startReferenceService, type RunningService, type TestCertificates } from '../../src-service/index';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface TlsService {
  svc: RunningService;
  certs: TestCertificates;
  apiKey: string;
  collectionId: number;
  close(): Promise<void>;
}

/**
 * The reference service over HTTPS (h2 + http/1.1) with a CA of its own, in a fresh temp folder.
 * Proxy tests use host 127.0.0.2: createDispatcher never proxies 127.0.0.1.
 */
export async function startTlsService(host = '127.0.0.1'): Promise<TlsService> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-tls-'));
  const certs = await createTestCertificates(path.join(root, 'pki'));
  const svc = await startReferenceService({
    dataDir: path.join(root, 'service'),
    seed: 5,
    sets: 3,
    fileSize: 96 * 1024,
    slots: 2,
    host,
    tls: { key: certs.key, cert: certs.cert, ca: certs.caCert },
  });
  const client = svc.clients[0]!;
  return {
    svc,
    certs,
    apiKey: client.apiKey,
    collectionId: client.collections[0]!,
    async close() {
      await svc.close();
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

/** Path of a binary on PATH (or in the usual sbin folders), undefined when absent. */
export function findBinary(name: string): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin']) {
    const candidate = path.join(dir, name);
    try {
      execFileSync('test', ['-x', candidate]);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

export interface RunningProxy {
  /** http://127.0.0.1:port (no credentials). */
  url: string;
  port: number;
  /** Everything the proxy logged so far (tinyproxy: its log; squid: its access log). */
  log(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The proxy's log once it contains `text`, or as it stands after `timeoutMs`. squid writes a
 * CONNECT line when the tunnel closes, and a client closes its pool without waiting for the
 * sockets, so the line can land just after the request that made it returned.
 */
export async function proxyLogWith(proxy: RunningProxy, text: string | RegExp, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = await proxy.log();
    const found = typeof text === 'string' ? log.includes(text) : text.test(log);
    if (found || Date.now() >= deadline) return log;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** tinyproxy in the foreground; it forwards plain HTTP and tunnels CONNECT to any port. */
export async function startTinyproxy(binary: string): Promise<RunningProxy> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-tinyproxy-'));
  const port = await closedLoopbackPort();
  const config = [`Port ${port}`, 'Listen 127.0.0.1', 'Timeout 60', 'MaxClients 100', 'Allow 127.0.0.1', 'LogLevel Connect'];
  // As root, tinyproxy drops to an unprivileged user (and wants to be told which).
  if (isRoot) config.push('User nobody', 'Group nogroup');
  await fs.writeFile(path.join(dir, 'tinyproxy.conf'), config.join('\n') + '\n');
  let output = '';
  const child = spawn(binary, ['-d', '-c', path.join(dir, 'tinyproxy.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  await waitForPort(port, child, () => output);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log: async () => output,
    stop: async () => {
      await stopChild(child);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** squid with Basic authentication of one user (basic_ncsa_auth over an htpasswd file made here). */
export async function startSquid(binary: string, user: string, password: string): Promise<RunningProxy> {
  const helper = ['/usr/lib/squid/basic_ncsa_auth', '/usr/lib64/squid/basic_ncsa_auth', '/usr/libexec/squid/basic_ncsa_auth'].find((p) => {
    try {
      execFileSync('test', ['-x', p]);
      return true;
    } catch {
      return false;
    }
  });
  if (!helper) throw new Error('squid is installed but its basic_ncsa_auth helper was not found');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-squid-'));
  const port = await closedLoopbackPort();
  const hash = await new Promise<string>((resolve, reject) =>
    execFile('openssl', ['passwd', '-apr1', '-stdin'], (err, stdout) => (err ? reject(err) : resolve(stdout.trim()))).stdin!.end(password),
  );
  await fs.writeFile(path.join(dir, 'htpasswd'), `${user}:${hash}\n`);
  const file = (name: string) => path.join(dir, name);
  await fs.writeFile(
    file('squid.conf'),
    [
      `http_port 127.0.0.1:${port}`,
      `pid_filename ${file('squid.pid')}`,
      `cache_log ${file('cache.log')}`,
      `access_log stdio:${file('access.log')}`,
      `coredump_dir ${dir}`,
      'cache deny all',
      'cache_mem 8 MB',
      'shutdown_lifetime 0 seconds',
      'pinger_enable off',
      `auth_param basic program ${helper} ${file('htpasswd')}`,
      'auth_param basic children 2',
      'auth_param basic realm dataset-sync test proxy',
      'acl authenticated proxy_auth REQUIRED',
      'http_access allow authenticated',
      'http_access deny all',
      '',
    ].join('\n'),
  );
  // As root, squid runs as its own user, which must read the config and write the logs.
  if (isRoot) execFileSync('chown', ['-R', 'proxy', dir]);
  let output = '';
  const child = spawn(binary, ['-N', '-f', file('squid.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  await waitForPort(port, child, async () => output + (await fs.readFile(file('cache.log'), 'utf8').catch(() => '')));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log: () => fs.readFile(file('access.log'), 'utf8').catch(() => ''),
    stop: async () => {
      await stopChild(child);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** squid (Basic auth of `user`) for the enclosing describe block: started before its tests, stopped after. */
export function useSquid(binary: string, user: string, password: string): { proxy: RunningProxy; urlWith(password: string): string } {
  const ctx = {
    proxy: undefined as unknown as RunningProxy,
    /** The proxy URL carrying `user` and the given password. */
    urlWith: (pw: string) => ctx.proxy.url.replace('http://', `http://${user}:${encodeURIComponent(pw)}@`),
  };
  beforeAll(async () => {
    ctx.proxy = await startSquid(binary, user, password);
  }, 60_000);
  afterAll(async () => {
    await ctx.proxy?.stop();
  });
  return ctx;
}

async function waitForPort(port: number, child: ChildProcess, output: () => string | Promise<string>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${child.spawnfile} exited (code ${child.exitCode}) before listening:\n${await output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  await stopChild(child);
  throw new Error(`${child.spawnfile} did not listen on ${port} within 30 s:\n${await output()}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

export interface FetchResult {
  ok: boolean;
  status?: number;
  /** ALPN protocol of the connection that carried the request ('h2', 'http/1.1'; '' for plain HTTP). */
  alpn?: string;
  code?: string;
  message?: string;
}

/**
 * One GET through createDispatcher in a fresh Node process (so that NODE_EXTRA_CA_CERTS and
 * the OS store are read as a user's CLI would read them). `env` replaces the child's environment.
 */
export function fetchInChild(url: string, options: { apiKey?: string; allowH2?: boolean; env: NodeJS.ProcessEnv }): Promise<FetchResult> {
  const script = path.join(REPO_ROOT, 'test/network/fixtures/fetch-once.ts');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', script, JSON.stringify({ url, apiKey: options.apiKey, allowH2: options.allowH2 ?? false })],
      { cwd: REPO_ROOT, env: options.env, timeout: 60_000 },
      (err, stdout, stderr) => {
        const line = stdout.trim().split('\n').pop() ?? '';
        try {
          resolve(JSON.parse(line) as FetchResult);
        } catch {
          reject(new Error(`fetch-once printed no result (${err?.message ?? 'no error'}):\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

/** PATH and HOME only: a child environment without the test runner's proxies or CA variables. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

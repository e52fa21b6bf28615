// The machine the figures come from, and the raw limits a missed target can be explained by.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runProc } from './proc';

function sh(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8' }).trim();
  } catch {
    return 'n/a';
  }
}

export function describeMachine(workDir: string): string[] {
  const cpu = os.cpus();
  const df = sh('df', ['-h', workDir]).split('\n').slice(-1)[0] ?? 'n/a';
  return [
    `- Date: ${new Date().toISOString()}`,
    `- CPU: ${cpu[0]?.model ?? 'n/a'}, ${cpu.length} cores; load average at start ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')} (other engineers' test suites share this machine)`,
    `- RAM: ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- Disk (df -h of the bench folder ${path.dirname(workDir)}): \`${df}\``,
    `- Node ${process.version}; ${sh('curl', ['--version']).split('\n')[0]}; ${sh('aria2c', ['--version']).split('\n')[0]}; ${sh('sha256sum', ['--version']).split('\n')[0]}`,
    `- OS: ${os.type()} ${os.release()}`,
  ];
}

export interface Limits {
  ddMBps: number;
  ddNoSyncMBps: number;
  sha256MBps: number;
}

/** Raw disk write (dd, with and without fdatasync) and SHA-256 speed of one core (Node's crypto). */
export async function measureLimits(workDir: string, quick: boolean): Promise<Limits> {
  const count = quick ? 256 : 2048;
  const file = path.join(workDir, 'dd.bin');
  const dd = async (extra: string[]) => {
    const r = await runProc('dd', ['if=/dev/zero', `of=${file}`, 'bs=1M', `count=${count}`, ...extra], { measure: false });
    await fs.rm(file, { force: true });
    await runProc('sync', [], { measure: false });
    return (count * 1024 * 1024) / 1e6 / (r.wallMs / 1000);
  };
  const ddMBps = await dd(['conv=fdatasync']);
  const ddNoSyncMBps = await dd([]);
  const buf = Buffer.alloc(256 * 1024 * 1024, 0x5a);
  const t = performance.now();
  for (let i = 0; i < 2; i++) createHash('sha256').update(buf).digest();
  const sha256MBps = (2 * buf.length) / 1e6 / ((performance.now() - t) / 1000);
  return { ddMBps, ddNoSyncMBps, sha256MBps };
}

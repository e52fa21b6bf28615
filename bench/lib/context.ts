import { promises as fs } from 'node:fs';
import path from 'node:path';
import { flushDisk } from './proc';

export interface BenchContext {
  quick: boolean;
  reps: number;
  /** Private folder on the same disk as the destinations (0700); removed at the end. */
  workDir: string;
  /** Generated service bodies, kept between bench runs (generation is not what we measure). */
  dataDir: string;
  log(line: string): void;
}

export interface TargetCheck {
  name: string;
  measured: string;
  target: string;
  /** null: a figure reported beside a target that is judged elsewhere (the "met" column says so, never "no"). */
  met: boolean | null;
}

export interface Section {
  title: string;
  body: string[];
  targets: TargetCheck[];
}

let destCounter = 0;

/** A fresh, empty destination folder on the bench disk. */
export async function freshDest(ctx: BenchContext): Promise<string> {
  const dest = path.join(ctx.workDir, `dest-${++destCounter}`);
  await fs.mkdir(dest, { recursive: true });
  return dest;
}

/** Deletes a destination (and our sibling consents folder), then flushes dirty pages; untimed. */
export async function dropDest(dest: string): Promise<void> {
  await fs.rm(dest, { recursive: true, force: true });
  await fs.rm(`${dest}.consents`, { recursive: true, force: true });
  await flushDisk();
}

export function table(header: string[], rows: Array<Array<string | number>>): string[] {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

// Does the media check slow the downloads? A demo-size collection (real videos, the media faults
// on) is synced by the CLI into a fresh folder, alternately with the media stage off
// (DATASET_SYNC_MEDIA_CHECK=off, for this bench only) and on; medians of the runs' wall time and
// of the summary's durationMs, and of the moment the last file was verified (the downloads'
// end: the sync then waits for the probes still running before it writes media.csv). Usage: npx tsx bench/media-probe.ts [--sets 24] [--reps 3]
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startReferenceService } from '../src-service/index';

const { values } = parseArgs({ options: { sets: { type: 'string', default: '24' }, reps: { type: 'string', default: '3' } } });
const sets = Number(values.sets);
const reps = Number(values.reps);
const root = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-bench-media-'));
const svc = await startReferenceService({ dataDir: path.join(root, 'service'), seed: 7, sets, mediaFaults: true });
const client = svc.clients[0]!;
const CLI = path.resolve('bin/dataset-sync.mjs');

async function once(mode: 'off' | 'on', n: number): Promise<{ wallMs: number; downloadsMs: number; durationMs: number; files: number; probes: number }> {
  const dest = path.join(root, `ds-${mode}-${n}`);
  const t0 = performance.now();
  let downloadsMs = 0;
  const stdout = await new Promise<string>((resolve, reject) => {
    const env = { ...process.env, DATASET_SYNC_API_KEY: client.apiKey, ...(mode === 'off' ? { DATASET_SYNC_MEDIA_CHECK: 'off' } : {}) };
    const child = spawn(process.execPath, [CLI, 'sync', '--base-url', svc.deliveryBaseUrl, '--collection', String(client.collections[0]), '--dest', dest, '--json'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      const text = d.toString();
      out += text;
      // When the last file was verified: the downloads are done, whatever the probes still do.
      if (text.includes('"state":"verified"')) downloadsMs = performance.now() - t0;
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`sync exited ${code}`))));
  });
  const wallMs = performance.now() - t0;
  const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; summary?: { durationMs: number; filesDownloaded: number } });
  const summary = lines.at(-1)!.summary!;
  return { wallMs, downloadsMs, durationMs: summary.durationMs, files: summary.filesDownloaded, probes: lines.filter((l) => l.type === 'media').length };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const runs: Record<'off' | 'on', Array<Awaited<ReturnType<typeof once>>>> = { off: [], on: [] };
try {
  for (let i = 0; i < reps; i++) {
    // Alternated, and the order flipped each round, so the machine's drift falls on both.
    for (const mode of i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const r = await once(mode, i);
      runs[mode].push(r);
      console.log(`${mode} #${i + 1}: wall ${r.wallMs.toFixed(0)} ms, last file verified at ${r.downloadsMs.toFixed(0)} ms, durationMs ${r.durationMs}, files ${r.files}, media events ${r.probes}`);
    }
  }
  for (const mode of ['off', 'on'] as const) {
    console.log(`${mode}: median wall ${median(runs[mode].map((r) => r.wallMs)).toFixed(0)} ms, median last-verified ${median(runs[mode].map((r) => r.downloadsMs)).toFixed(0)} ms, median durationMs ${median(runs[mode].map((r) => r.durationMs))}`);
  }
} finally {
  await svc.close();
  await fs.rm(root, { recursive: true, force: true });
}

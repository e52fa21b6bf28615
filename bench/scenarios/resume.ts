// Scenario 4: SIGKILL a sync at about half of a 1 GiB file, sync again, and compare the file
// bytes the service sent on the second run with what was left to fetch. The file is a real
// video of that size (src-service/video-bodies.ts), and both runs keep the product's defaults,
// the media check included: the resumed run checks the whole video once it is verified.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { dropDest, freshDest, table, type BenchContext, type Section } from '../lib/context';
import { runOurs } from '../lib/peers';
import { bodiesLine, startBenchService } from '../lib/service';
import { fmt, MiB } from '../lib/stats';

async function partBytes(dest: string): Promise<number> {
  const dir = path.join(dest, '.dataset-sync', 'partial');
  let total = 0;
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    if (name.endsWith('.part')) total += (await fs.stat(path.join(dir, name)).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

export async function scenarioResume(ctx: BenchContext): Promise<Section> {
  const size = ctx.quick ? 128 * MiB : 1024 * MiB;
  ctx.log(`Scenario 4: one file of ${size / MiB} MiB (a real video), killed at half`);
  const svc = await startBenchService({ sets: 1, slots: 1, fileSize: size, dataDir: ctx.dataDir, videoBodies: true });
  const dest = await freshDest(ctx);
  try {
    let pid = 0;
    let killedAt = 0;
    const first = runOurs(svc, dest, { measure: false, onSpawn: (p) => (pid = p) });
    // Poll the .part size; kill as soon as half is written.
    for (;;) {
      const held = await partBytes(dest);
      if (held >= size / 2) {
        process.kill(pid, 'SIGKILL');
        killedAt = held;
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    const firstRun = await first;
    const held = await partBytes(dest);
    await svc.resetStats();
    const second = await runOurs(svc, dest);
    const st = await svc.stats();
    if (!second.ok) throw new Error(`resumed sync failed: ${second.note ?? ''}`);
    const left = size - held;
    const ratio = st.fileBytesSent / left;
    const body = [
      ...table(
        ['file size', 'part size seen at kill', 'held after kill', 'left', 'first run ended by', 'file bytes sent on 2nd run', 'ratio sent/left', '2nd run wall (s)', '2nd run bytes hashed'],
        [[size, killedAt, held, left, firstRun.note?.split(':')[0] ?? 'exit 0', st.fileBytesSent, fmt(ratio, 4), fmt(second.wallMs / 1000), second.summary?.bytesHashed ?? 'n/a']],
      ),
      '',
      `The second run hashed the ${held} held bytes first (docs/contracts.md §4) and then asked \`Range: bytes=${held}-\`.`,
      `${bodiesLine(svc, false)} Both runs with the product's defaults, the media check included.`,
    ];
    return {
      title: `Scenario 4: resume after SIGKILL at half of a ${size / MiB} MiB real video`,
      body,
      targets: [{ name: 'S4 bytes sent on resume / bytes left', measured: fmt(ratio, 4), target: '<= 1.05', met: ratio <= 1.05 }],
    };
  } finally {
    await svc.stop();
    await dropDest(dest);
  }
}

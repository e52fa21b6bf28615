// Preloaded into the measured CLI (NODE_OPTIONS=--import=<this file>, BENCH_STALL_FILE=<path>) so the
// bench learns the longest event-loop stall of a sync without any hook in the engine: the
// event-loop delay histogram (perf_hooks.monitorEventLoopDelay, 10 ms resolution) runs from the
// start and its max and p99 are written, synchronously, as JSON when the process exits.
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const target = process.env.BENCH_STALL_FILE;
if (isMainThread && target) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  // The histogram learns of a stall only when its timer fires afterwards; a stall that ends in
  // process.exit is caught by the gap since the last tick of this timer.
  let lastTick = performance.now();
  setInterval(() => (lastTick = performance.now()), 10).unref();
  process.on('exit', () => {
    histogram.disable();
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    const finalGapMs = Math.max(0, performance.now() - lastTick - 10);
    writeFileSync(target, JSON.stringify({ maxMs: Math.max(ms(histogram.max), Math.round(finalGapMs * 100) / 100), p99Ms: ms(histogram.percentile(99)), meanMs: ms(histogram.mean) }));
  });
}

// Where a sync's requests spend their time, for measuring by hand (bench/NOTES.md, "Where a small
// file's request waits"): preload it into the CLI, e.g.
//   node --import ./bench/lib/request-stages.mjs bin/dataset-sync.mjs sync ... --json
// and it prints one line to stderr at exit:
// - the requests in flight over time (undici's diagnostics channels, from a request's creation to
//   its last byte), as a time-weighted mean and the share of time at each count above 1 %;
// - a request's mean wait from its creation to its headers written on the socket (undici reuses a
//   keep-alive connection only after a turn of the event loop), from there to the answer's headers
//   (the service's work, and the wait for the engine's thread to read them), and on to the end;
// - the event loop's utilization (the share of time it was not waiting in epoll).
// It costs a few microseconds per request: compare runs made with it only with each other.
import dc from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';

const MAX_COUNTED = 64;
const timeAt = new Float64Array(MAX_COUNTED + 1);
let inFlight = 0;
let changedAt = performance.now();
function step(delta) {
  const now = performance.now();
  timeAt[Math.min(MAX_COUNTED, inFlight)] += now - changedAt;
  changedAt = now;
  inFlight += delta;
}

/** Per request: [created, headers sent, answer's headers]. */
const stamps = new WeakMap();
const sums = { sent: 0, answered: 0, ended: 0, requests: 0 };
dc.subscribe('undici:request:create', ({ request }) => {
  step(1);
  stamps.set(request, [performance.now(), 0, 0]);
});
dc.subscribe('undici:client:sendHeaders', ({ request }) => {
  const s = stamps.get(request);
  if (s) s[1] = performance.now();
});
dc.subscribe('undici:request:headers', ({ request }) => {
  const s = stamps.get(request);
  if (s) s[2] = performance.now();
});
dc.subscribe('undici:request:trailers', ({ request }) => {
  step(-1);
  const s = stamps.get(request);
  if (!s || s[1] === 0 || s[2] === 0) return;
  sums.sent += s[1] - s[0];
  sums.answered += s[2] - s[1];
  sums.ended += performance.now() - s[2];
  sums.requests++;
});
dc.subscribe('undici:request:error', () => step(-1));

process.on('exit', () => {
  step(0);
  const total = timeAt.reduce((a, b) => a + b, 0);
  let weighted = 0;
  const shares = [];
  timeAt.forEach((ms, count) => {
    weighted += count * ms;
    if (ms / total >= 0.01) shares.push(`${count}: ${((100 * ms) / total).toFixed(1)} %`);
  });
  const n = Math.max(1, sums.requests);
  const elu = performance.eventLoopUtilization();
  process.stderr.write(
    `REQUEST-STAGES ${sums.requests} requests; in flight: mean ${(weighted / total).toFixed(1)} over ${(total / 1000).toFixed(1)} s (${shares.join(', ')}); ` +
      `created to sent ${(sums.sent / n).toFixed(3)} ms, sent to answered ${(sums.answered / n).toFixed(3)} ms, answered to ended ${(sums.ended / n).toFixed(3)} ms; ` +
      `event loop utilization ${elu.utilization.toFixed(3)} (${(elu.idle / 1000).toFixed(2)} s idle)\n`,
  );
});

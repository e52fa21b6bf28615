// The bench's reading of the hypervisor's steal time (bench/lib/proc.ts): each scale run prints
// it beside its timings, so a wrong column would mislabel every figure in bench/RESULTS.md.
import { promises as fs } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { machineStealSeconds, stealSecondsOf } from '../../bench/lib/proc';

describe('steal time from /proc/stat', () => {
  it('reads the steal column of the cpu line, in seconds of USER_HZ ticks', () => {
    const stat = [
      'cpu  2363356 51772 588065 7747637 134207 0 52944 443938 0 0',
      'cpu0 1181678 25886 294032 3873818 67103 0 26472 221969 0 0',
      'intr 123 0 0',
    ].join('\n');
    expect(stealSecondsOf(stat)).toBe(4439.38);
  });

  it('says NaN, not 0, where it cannot know', () => {
    expect(stealSecondsOf('cpu  1 2 3 4 5 6 7\n')).toBeNaN(); // no steal column
    expect(stealSecondsOf('intr 1 2 3\n')).toBeNaN();
  });

  it.skipIf(process.platform !== 'linux')('reads this machine: the same figure as its cpu line, never going back', async () => {
    const first = await machineStealSeconds();
    const line = (await fs.readFile('/proc/stat', 'utf8')).split('\n')[0]!;
    const second = await machineStealSeconds();
    expect(Number.isFinite(first)).toBe(true);
    expect(second).toBeGreaterThanOrEqual(first);
    const fromLine = Number(line.trim().split(/\s+/)[8]) / 100;
    expect(fromLine).toBeGreaterThanOrEqual(first);
    expect(fromLine).toBeLessThanOrEqual(second);
  });
});

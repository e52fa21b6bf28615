// ProgressTracker with the stages' own work (stages/: the media check reading files it did not see
// stream past): the bar keeps a share for it by its count of files, reaches its end only once that
// work is done, and the ETA covers it at its own rate (issue 69 point 5: nothing a sync waits for is
// left out of the bar or the ETA).
import { describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../src-shared/sync-events';
import { Accounting, newActiveTransfer } from '../../src-main/sync/accounting';
import { ProgressTracker } from '../../src-main/sync/progress';

function setup() {
  let t = 1_000_000;
  const clock = { now: () => t, sleep: async () => undefined };
  const events: ProgressEvent[] = [];
  const acc = new Accounting(undefined, undefined, undefined, clock);
  const work = { done: 0, total: 0 };
  acc.stageWork = () => ({ ...work });
  acc.setsExpected = 1;
  const tracker = new ProgressTracker(acc, (e) => events.push(e as ProgressEvent), 10_000, 10_000, clock);
  return { acc, work, tracker, events, advance: (ms: number) => (t += ms), last: () => events.at(-1)! };
}

describe('ProgressTracker with stage work', () => {
  it('keeps the bar short of its end while stage work is left, and follows that work alone when nothing is downloaded', () => {
    const { acc, work, tracker, advance, last } = setup();
    tracker.start();
    acc.listed = true;
    work.total = 10; // ten files to check, nothing to download
    tracker.update();
    expect(last().fraction).toBe(0);
    for (let i = 1; i <= 10; i++) {
      advance(500);
      work.done = i;
      tracker.update();
      if (i < 10) expect(last().fraction).toBeCloseTo(i / 10, 5);
    }
    expect(last().fraction).toBe(1);
  });

  it('shares the bar between downloads and stage work by their counts of files; downloads done alone is not the end', () => {
    const { acc, work, tracker, advance, last } = setup();
    tracker.start();
    acc.fileQueued(1000);
    acc.fileQueued(1000);
    acc.fileQueued(1000);
    acc.listed = true;
    work.total = 1;
    const files = [1, 2, 3].map((i) => newActiveTransfer(i, `sets/1/f${i}`, 1000));
    for (const f of files) {
      acc.active.add(f);
      void acc.received(f, 1000);
      acc.transferEnded(f, true);
      advance(100);
    }
    tracker.update();
    // Three of four files' worth is done; the check of the fourth is left.
    expect(last().fraction).toBeCloseTo(0.75, 5);
    acc.phase = 'checking_media';
    tracker.update();
    expect(last()).toMatchObject({ phase: 'checking_media', mediaLeft: 1 });
    expect(last().fraction).toBeLessThan(1);
    work.done = 1;
    tracker.update();
    expect(last().fraction).toBe(1);
  });

  it('says how long the stage work left takes at its own rate once it has a rate, also after the transfers ended', () => {
    const { acc, work, tracker, advance, last } = setup();
    tracker.start();
    acc.listed = true;
    acc.phase = 'checking_media';
    work.total = 100;
    tracker.update();
    expect(last().etaSeconds).toBeNull(); // no rate yet
    for (let i = 1; i <= 6; i++) {
      advance(1000);
      work.done = i * 5; // 5 files a second
      tracker.update();
    }
    // 70 files left at 5 a second.
    expect(last().etaSeconds).toBe(14);
    expect(last().mediaLeft).toBe(70);
  });
});

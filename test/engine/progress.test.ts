// ProgressTracker (sync/progress.ts): the first event at once, with setsTotal; a rate over
// received bytes only (bytes held by a resume are no spike); ETA null until meaningful; while
// nothing moves, only a heartbeat whose rate falls to zero; nothing shown ever goes back.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../src-shared/sync-events';
import { Accounting, newActiveTransfer } from '../../src-main/sync/accounting';
import { ProgressTracker } from '../../src-main/sync/progress';

describe('ProgressTracker', () => {
  it('sends setsTotal at once, a rate over received bytes only, and stays quiet while nothing moves', async () => {
    const events: ProgressEvent[] = [];
    const acc = new Accounting();
    acc.setsExpected = 10;
    acc.phase = 'listing';
    const tracker = new ProgressTracker(acc, (e) => events.push(e as ProgressEvent), 100, 1200);
    tracker.start();
    expect(events[0]).toMatchObject({ setsTotal: 10, setsDone: 0, fraction: 0, etaSeconds: null, phase: 'listing', paused: false });
    acc.fileQueued(1_000_000);
    acc.fileQueued(1_000_000);
    const a = newActiveTransfer(1, 'sets/1/a', 1_000_000);
    acc.active.add(a);
    acc.held(a, 600_000); // a resume: held bytes count as done, not as received
    await sleep(130);
    expect(events.at(-1)!.bytesDone).toBe(600_000);
    expect(events.at(-1)!.bytesPerSecond).toBe(0);
    void acc.received(a, 100_000);
    await sleep(130);
    const e = events.at(-1)!;
    expect(e.bytesDone).toBe(700_000);
    expect(e.bytesPerSecond).toBeGreaterThan(0);
    expect(e.bytesPerSecond).toBeLessThanOrEqual(100_000); // 100 kB over a window of at least 1 s, not the held 600 kB
    expect(e.active[0]!.bytesPerSecond).toBeGreaterThan(0);
    expect(e.etaSeconds).toBeNull(); // under 2 s of transfer
    const n = events.length;
    await sleep(250); // nothing changed: no new event yet
    expect(events.length).toBe(n);
    await sleep(1100); // the heartbeat: same counters, a lower rate (the window is at least 1 s)
    expect(events.length).toBe(n + 1);
    expect(events.at(-1)!.bytesPerSecond).toBeLessThan(e.bytesPerSecond);
    tracker.stop();
  });

  it('ETA is never shorter than the slowest transfer needs at its own rate', () => {
    let t = 1_000_000;
    const clock = { now: () => t, sleep: async () => undefined };
    const events: ProgressEvent[] = [];
    const acc = new Accounting();
    acc.setsExpected = 1;
    const tracker = new ProgressTracker(acc, (e) => events.push(e as ProgressEvent), 10_000, 10_000, clock);
    tracker.start();
    acc.fileQueued(10_000_000);
    acc.fileQueued(100_000);
    acc.listed = true;
    const fast = newActiveTransfer(1, 'sets/1/fast', 10_000_000);
    const slow = newActiveTransfer(1, 'sets/1/slow', 100_000);
    acc.active.add(fast);
    acc.active.add(slow);
    for (let i = 1; i <= 4; i++) {
      t += 1000; // the fast file arrives in 4 s; the slow one trickles 1 kB/s
      void acc.received(fast, 2_500_000);
      void acc.received(slow, 1000);
      tracker.update();
    }
    acc.transferEnded(fast, true);
    t += 1000;
    void acc.received(slow, 1000);
    tracker.update();
    const e = events.at(-1)!;
    // 95 kB left: the total rate (~2 MB/s over the window) would say 0 s; the slow file says ~95 s.
    expect(e.active.map((a) => a.path)).toEqual(['sets/1/slow']);
    expect(e.etaSeconds).toBeGreaterThanOrEqual(90);
    tracker.stop();
  });

  it('never lowers a done count when a download starts over; the bytes received again are counted apart', () => {
    const events: ProgressEvent[] = [];
    const acc = new Accounting();
    acc.setsExpected = 1;
    const tracker = new ProgressTracker(acc, (e) => events.push(e as ProgressEvent), 10_000, 10_000);
    tracker.start();
    acc.fileQueued(1000);
    const a = newActiveTransfer(1, 'sets/1/a', 1000);
    acc.held(a, 400);
    acc.restarted(a); // a 200 answer to the resume: the whole file comes again
    void acc.received(a, 500);
    expect(acc.bytesDone).toBe(500);
    expect(acc.bytesRedownloaded).toBe(400);
    acc.transferEnded(a, true);
    expect(acc.bytesDone).toBe(1000);
    acc.listed = true;
    tracker.stop();
    expect(events.at(-1)).toMatchObject({ bytesDone: 1000, bytesTotal: 1000, bytesRedownloaded: 400 });
  });

  it('drives the fraction by sets while listing, then by the remaining bytes from where the sets left it', () => {
    const events: ProgressEvent[] = [];
    const acc = new Accounting();
    acc.setsExpected = 4;
    const tracker = new ProgressTracker(acc, (e) => events.push(e as ProgressEvent), 10_000, 10_000);
    tracker.start();
    acc.sets = 2;
    acc.setsComplete = 1;
    acc.fileQueued(1000);
    tracker.update();
    expect(events.at(-1)!.fraction).toBe(0.25);
    acc.listed = true;
    tracker.update();
    expect(events.at(-1)!.fraction).toBe(0.25);
    const a = newActiveTransfer(1, 'x', 1000);
    void acc.received(a, 500);
    tracker.update();
    expect(events.at(-1)!.fraction).toBeCloseTo(0.625);
    acc.transferEnded(a, true);
    tracker.stop();
    expect(events.at(-1)!.fraction).toBe(1);
    expect(events.at(-1)!.etaSeconds).toBe(0);
  });

  it('moves the bar by the bytes of sets in flight while listing', () => {
    const events: ProgressEvent[] = [];
    const acc = new Accounting();
    acc.setsExpected = 4;
    const tracker = new ProgressTracker(acc, (e) => events.push(e as ProgressEvent), 10_000, 10_000);
    tracker.start();
    acc.sets = 2; // one set ended, one in flight with a 1000-byte file half received
    acc.setsComplete = 1;
    acc.fileQueued(200);
    acc.bytesOfEndedSets = 200;
    acc.bytesDone = 200;
    acc.fileQueued(1000);
    void acc.received(newActiveTransfer(2, 'y', 1000), 500);
    tracker.stop();
    expect(events.at(-1)!.fraction).toBeCloseTo((1 + 0.5) / 4);
  });
});

// ProgressTracker (sync/progress.ts): the first event at once, with setsTotal; a rate over
// received bytes only (bytes held by a resume are no spike); ETA null until meaningful; while
// nothing moves, only a heartbeat whose rate falls to zero; nothing shown ever goes back; while
// listing, estimated totals and a fraction of bytes; listing and downloading named together; a
// pause left out of rates and the ETA; a transfer's own rate from its first byte.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../src-shared/sync-events';
import { Accounting, newActiveTransfer } from '../../src-main/sync/accounting';
import { ProgressTracker } from '../../src-main/sync/progress';
import { createPauseGate } from '../../src-main/sync/task-pool';

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

  it('a set still queuing its files (the transfer pool full) does not lower the estimate', () => {
    const events: ProgressEvent[] = [];
    const acc = new Accounting();
    acc.setsExpected = 6;
    acc.phase = 'listing';
    const tracker = new ProgressTracker(acc, (e) => events.push(e as ProgressEvent), 10_000, 10_000);
    tracker.start();
    // Two sets fully queued (2 files of 1000 bytes each), a third listed with none of its files queued yet.
    acc.sets = 3;
    for (let i = 0; i < 4; i++) acc.fileQueued(1000);
    acc.setsQueuing = 1;
    const a = newActiveTransfer(1, 'x', 1000);
    acc.active.add(a);
    void acc.received(a, 900);
    tracker.update();
    // Four sets to come (three to list, one queuing) at the settled sets' 2000 bytes: 12000, not 8000.
    expect(events.at(-1)).toMatchObject({ estimated: true, bytesTotal: 4000, bytesTotalEstimate: 12000, filesTotalEstimate: 12 });
    expect(events.at(-1)!.fraction).toBeCloseTo(900 / 12000);
    tracker.stop();
  });

  it('while listing, drives the fraction by bytes of the estimated total and says the totals are estimates', () => {
    const events: ProgressEvent[] = [];
    const acc = new Accounting();
    acc.setsExpected = 4;
    acc.phase = 'listing';
    const tracker = new ProgressTracker(acc, (e) => events.push(e as ProgressEvent), 10_000, 10_000);
    tracker.start();
    // Nothing listed yet: no total to speak of, and said so.
    expect(events[0]).toMatchObject({ estimated: true, bytesTotalEstimate: null, filesTotalEstimate: null, bytesTotal: 0, fraction: 0 });
    acc.sets = 2; // two of four sets listed, three files of 1000 bytes
    acc.fileQueued(1000);
    acc.fileQueued(1000);
    acc.fileQueued(1000);
    const a = newActiveTransfer(1, 'x', 1000);
    acc.active.add(a);
    void acc.received(a, 1000);
    tracker.update();
    // The two sets still to list are counted at the average of the two listed: 6000 bytes, 6 files.
    expect(events.at(-1)).toMatchObject({ estimated: true, bytesTotal: 3000, bytesTotalEstimate: 6000, filesTotal: 3, filesTotalEstimate: 6 });
    expect(events.at(-1)!.fraction).toBeCloseTo(1000 / 6000);
    // The other sets were up to date: the totals are exact, the bar goes on from the true share.
    acc.sets = 4;
    acc.listed = true;
    tracker.update();
    expect(events.at(-1)).toMatchObject({ estimated: false, bytesTotal: 3000, bytesTotalEstimate: 3000, filesTotalEstimate: 3 });
    expect(events.at(-1)!.fraction).toBeCloseTo(1 / 3);
    void acc.received(a, 0);
    acc.transferEnded(a, true);
    const b = newActiveTransfer(2, 'y', 1000);
    void acc.received(b, 500);
    tracker.update();
    expect(events.at(-1)!.fraction).toBeCloseTo(1500 / 3000);
    acc.transferEnded(b, true);
    acc.bytesDone = 3000;
    tracker.stop();
    expect(events.at(-1)!.fraction).toBe(1);
    expect(events.at(-1)!.etaSeconds).toBe(0);
  });

  it('counts no work done for the sets an incremental sync need not walk', () => {
    const events: ProgressEvent[] = [];
    const acc = new Accounting();
    acc.setsExpected = 10;
    const tracker = new ProgressTracker(acc, (e) => events.push(e as ProgressEvent), 10_000, 10_000);
    tracker.start();
    acc.setsUnchanged = 6; // the first page: 4 sets changed since the last sync
    tracker.update();
    expect(events.at(-1)).toMatchObject({ setsDone: 6, setsTotal: 10, fraction: 0 });
    acc.sets = 2; // two walked, both up to date: no byte known, so the share of the sets to walk
    acc.setsComplete = 2;
    tracker.update();
    expect(events.at(-1)).toMatchObject({ setsDone: 8, fraction: 0.5, bytesTotalEstimate: 0 });
  });

  it('names listing and downloading together while they overlap', () => {
    const events: ProgressEvent[] = [];
    const acc = new Accounting();
    acc.setsExpected = 2;
    acc.phase = 'listing';
    const tracker = new ProgressTracker(acc, (e) => events.push(e as ProgressEvent), 10_000, 10_000);
    tracker.start();
    expect(events.at(-1)).toMatchObject({ phase: 'listing', phases: ['listing'] });
    const a = newActiveTransfer(1, 'x', 1000);
    acc.active.add(a);
    a.checking = true;
    tracker.update();
    expect(events.at(-1)).toMatchObject({ phase: 'listing', phases: ['listing', 'checking'] });
    a.checking = false;
    tracker.update();
    expect(events.at(-1)).toMatchObject({ phase: 'listing', phases: ['listing', 'downloading'] });
    acc.walkRetry = { attempt: 2, of: 6, until: Date.now() + 60_000 };
    tracker.update();
    expect(events.at(-1)).toMatchObject({ phase: 'retrying', phases: ['retrying', 'downloading'] });
    acc.walkRetry = undefined;
    acc.listed = true;
    acc.phase = 'downloading';
    tracker.update();
    expect(events.at(-1)).toMatchObject({ phase: 'downloading', phases: ['downloading'] });
    acc.active.delete(a);
    acc.phase = 'writing_manifest';
    tracker.stop();
    expect(events.at(-1)).toMatchObject({ phase: 'writing_manifest', phases: ['writing_manifest'] });
  });

  it('leaves a pause out of the rate and the ETA', () => {
    let t = 1_000_000;
    const clock = { now: () => t, sleep: async () => undefined };
    const gate = createPauseGate();
    const events: ProgressEvent[] = [];
    const acc = new Accounting(undefined, gate, undefined, clock);
    acc.setsExpected = 1;
    const tracker = new ProgressTracker(acc, (e) => events.push(e as ProgressEvent), 10_000, 10_000, clock);
    tracker.start();
    acc.sets = 1;
    acc.fileQueued(20_000_000);
    acc.listed = true;
    const a = newActiveTransfer(1, 'sets/1/a', 20_000_000);
    acc.active.add(a);
    const second = (bytes: number) => {
      t += 1000;
      if (bytes > 0) void acc.received(a, bytes);
      tracker.update(); // the timer's tick, once a second here
    };
    for (let i = 0; i < 5; i++) second(1_000_000); // 1 MB/s for 5 s
    gate.pause();
    tracker.update(); // the timer's next tick sees the pause (at most an interval late)
    for (let i = 0; i < 60; i++) second(0); // a minute paused
    expect(events.at(-1)).toMatchObject({ paused: true, bytesPerSecond: 0, etaSeconds: null });
    expect(events.at(-1)!.active[0]!.bytesPerSecond).toBe(0);
    gate.resume();
    tracker.update();
    second(1_000_000);
    second(1_000_000);
    const e = events.at(-1)!;
    // 1 MB/s before and after: the minute paused is not averaged in (it would say 0.4 MB/s).
    expect(e.paused).toBe(false);
    expect(e.bytesPerSecond).toBeGreaterThan(950_000);
    expect(e.bytesPerSecond).toBeLessThan(1_050_000);
    expect(e.active[0]!.bytesPerSecond).toBeGreaterThan(950_000);
    // 13 MB left at 1 MB/s.
    expect(e.etaSeconds).toBeGreaterThanOrEqual(12);
    expect(e.etaSeconds).toBeLessThanOrEqual(14);
    tracker.stop();
  });

  it('gives a transfer seen once in flight its rate since its first byte', () => {
    let t = 1_000_000;
    const clock = { now: () => t, sleep: async () => undefined };
    const events: ProgressEvent[] = [];
    const acc = new Accounting(undefined, undefined, undefined, clock);
    acc.setsExpected = 1;
    const tracker = new ProgressTracker(acc, (e) => events.push(e as ProgressEvent), 10_000, 10_000, clock);
    tracker.start();
    acc.fileQueued(1_000_000);
    const a = newActiveTransfer(1, 'sets/1/a', 1_000_000);
    acc.active.add(a);
    void acc.received(a, 100_000); // first byte
    t += 500;
    void acc.received(a, 400_000);
    tracker.update(); // the first tick that sees it: 500 kB in 0.5 s
    expect(events.at(-1)!.active[0]).toMatchObject({ bytesDone: 500_000, bytesPerSecond: 1_000_000 });
    tracker.stop();
  });
});

// ProgressTracker (sync/progress.ts): rate and ETA from the first event on; while nothing moves,
// only a heartbeat whose rate falls to zero (a stalled transfer does not show its last rate).
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { SyncEvent } from '../../src-shared/sync-events';
import { Accounting } from '../../src-main/sync/accounting';
import { ProgressTracker } from '../../src-main/sync/progress';

type Progress = Extract<SyncEvent, { type: 'progress' }>;

describe('ProgressTracker', () => {
  it('has a rate and an ETA in its first event, and stays quiet while nothing moves', async () => {
    const events: Progress[] = [];
    const p = new Accounting();
    const tracker = new ProgressTracker(p, (e) => events.push(e as Progress), 100, 600);
    p.bytesTotal = 1_000_000;
    p.filesTotal = 2;
    tracker.start();
    p.bytesDone = 250_000;
    await sleep(130);
    expect(events.length).toBe(1);
    expect(events[0]!.bytesPerSecond).toBeGreaterThan(0);
    expect(events[0]!.etaSeconds).not.toBeNull();
    await sleep(250); // nothing changed: no new event yet
    expect(events.length).toBe(1);
    await sleep(500); // the heartbeat: same counters, a lower rate
    expect(events.length).toBe(2);
    expect(events[1]!.bytesDone).toBe(250_000);
    expect(events[1]!.bytesPerSecond).toBeLessThan(events[0]!.bytesPerSecond);
    p.bytesDone = 1_000_000;
    p.filesDone = 2;
    tracker.stop();
    expect(events.at(-1)).toMatchObject({ bytesDone: 1_000_000, filesDone: 2, etaSeconds: 0 });
  });
});

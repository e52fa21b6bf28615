// One convention for sizes and rates (issue 23, point 8): the window and the CLI print the same
// bytes the same way, in binary units written KiB/MiB/GiB as rclone does, and the Settings field
// takes the unit the CLI's --bwlimit takes.
import { describe, expect, it } from 'vitest';
import { formatBytes as cliBytes, formatRate as cliRate } from '../../src-main/cli/format';
import { progressLine, summaryText } from '../../src-main/cli/sync-display';
import { parseBwlimit } from '../../src-main/sync/rate-limit';
import { formatBytes as appBytes, formatRate as appRate } from '../../src-renderer/format';
import { bwlimitFieldText, parseBwlimitMebibytes } from '../../src-shared/settings';
import type { SyncSummary } from '../../src-shared/sync-events';

describe('sizes and rates', () => {
  it('the CLI and the window format the same bytes identically, in KiB/MiB/GiB', () => {
    const cases: Array<[number, string]> = [
      [0, '0 B'],
      [1023, '1023 B'],
      [1024, '1.00 KiB'],
      [64_000, '62.5 KiB'],
      [1_048_575, '1.00 MiB'],
      [100_663_296, '96.0 MiB'],
      [536_870_912, '512 MiB'],
      [2 * 1024 ** 3, '2.00 GiB'],
    ];
    for (const [bytes, text] of cases) {
      expect(cliBytes(bytes), String(bytes)).toBe(text);
      expect(appBytes(bytes), String(bytes)).toBe(text);
      expect(cliRate(bytes)).toBe(appRate(bytes));
    }
    expect(appBytes(-1)).toBe('–');
  });

  it('the CLI summary and progress line say MiB, never MB', () => {
    const summary = { sets: 1, setsComplete: 1, setsFailed: 0, setsNotServed: [], filesDownloaded: 3, filesUpToDate: 0, filesFailed: 0, bytesDownloaded: 100_663_296, durationMs: 1000, requests: 4, exitCode: 0, cancelled: false } as unknown as SyncSummary;
    expect(summaryText(summary)).toContain('96.0 MiB');
    const line = progressLine({
      type: 'progress', phase: 'downloading', paused: false, setsDone: 1, setsTotal: 2, bytesDone: 100_663_296, bytesTotal: 2 * 100_663_296, filesDone: 1, filesTotal: 2,
      fraction: 0.5, bytesPerSecond: 10 * 1024 * 1024, etaSeconds: 10, bytesRedownloaded: 0, active: [],
    });
    expect(line).toContain('96.0 MiB/192 MiB');
    expect(line).toContain('10.0 MiB/s');
    expect(line).not.toMatch(/\dM?B\b/);
  });

  it('the Settings field is in MiB/s: "10" there is --bwlimit 10M', () => {
    expect(parseBwlimitMebibytes('10')).toEqual({ ok: true, bytesPerSecond: parseBwlimit('10M') });
    expect(parseBwlimitMebibytes('0,5')).toEqual({ ok: true, bytesPerSecond: 524_288 });
    expect(parseBwlimitMebibytes('')).toEqual({ ok: true, bytesPerSecond: null });
    expect(parseBwlimitMebibytes('20000')).toMatchObject({ ok: false, problem: expect.stringContaining('MiB/s') });
    expect(bwlimitFieldText(10 * 1024 * 1024)).toBe('10');
    expect(bwlimitFieldText(2_000_000)).toBe('1.907'); // a limit saved when the field was decimal MB/s
    expect(bwlimitFieldText(null)).toBe('');
  });
});

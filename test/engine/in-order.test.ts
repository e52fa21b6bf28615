// Lists sorted only when out of order (src-main/sync/in-order.ts): a set's files by slot for every
// dataset file's rows, its participants by role. The result must be the order a sort gives, and the
// input must stay as it was (records and listings are shared).
import { describe, expect, it } from 'vitest';
import { inOrder } from '../../src-main/sync/in-order';
import { inRoleOrder } from '../../src-main/sync/participants-file';
import { filesBySlot, type FileEntry, type LocalSet } from '../../src-main/sync/state/set-store';

const entry = (slotIndex: number): FileEntry => ({
  setId: 1, fileId: slotIndex, slotIndex, slotKey: `k${slotIndex}`, sizeBytes: 1, sha256: 'a'.repeat(64), mtimeMs: 1,
  participantRefs: 'r', isGold: false, acceptedAt: null, updatedAt: 'u', downloadedAt: 'd',
});

describe('inOrder', () => {
  const byNumber = (a: number, b: number) => a - b;

  it('gives the list itself when it is in order, and a sorted copy, the input untouched, when it is not', () => {
    const sorted = [1, 2, 2, 5];
    expect(inOrder(sorted, byNumber)).toBe(sorted);
    const shuffled = [3, 1, 2, 0];
    const result = inOrder(shuffled, byNumber);
    expect(result).toEqual([0, 1, 2, 3]);
    expect(shuffled).toEqual([3, 1, 2, 0]);
    expect(inOrder([], byNumber)).toEqual([]);
  });

  it('orders a set whose file names sort otherwise than its slots (manifest rows are by slot)', () => {
    // Names a service may give: path order (what the state returns) is not slot order.
    const set: LocalSet = { id: 1, updatedAt: null, isGold: false, complete: true, files: { 'sets/1/a_close.mp4': entry(3), 'sets/1/b_wide.mp4': entry(1), 'sets/1/c_pan.mp4': entry(2) } };
    expect(filesBySlot(set).map(([rel]) => rel)).toEqual(['sets/1/b_wide.mp4', 'sets/1/c_pan.mp4', 'sets/1/a_close.mp4']);
    expect(Object.keys(set.files)).toEqual(['sets/1/a_close.mp4', 'sets/1/b_wide.mp4', 'sets/1/c_pan.mp4']);
  });

  it('orders participants listed out of role order, and leaves the listing as it was', () => {
    const listed = [{ role: 'C' }, { role: 'A' }, { role: 'B' }];
    expect(inRoleOrder(listed).map((p) => p.role)).toEqual(['A', 'B', 'C']);
    expect(listed.map((p) => p.role)).toEqual(['C', 'A', 'B']);
  });
});

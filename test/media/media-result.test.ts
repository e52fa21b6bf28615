// The media check's result as the store keeps it (src-main/sync/media/media-result.ts): compact JSON
// that reads back as the same entry for every kind of finding, the form of schema 1 still read, and
// anything else read as no result (the file is then checked again, never judged on garbage).
import { describe, expect, it } from 'vitest';
import { entryOf, resultOf } from '../../src-main/sync/media/media-result';
import type { MediaEntry } from '../../src-main/sync/media/media-check';

const SHA = 'ab'.repeat(32);
const probe = { width: 1920, height: 1080, fps: 29.97, duration: 12.345, codec: 'h264' };

describe('media results', () => {
  it.each<[string, MediaEntry, string]>([
    ['unreadable', { sha256: SHA, result: 'unreadable' }, '0'],
    ['probed, the listing the same', { sha256: SHA, result: 'probed', probe, listed: probe }, '[1920,1080,29.97,12.345,"h264"]'],
    ['probed, no listing', { sha256: SHA, result: 'probed', probe }, '[1920,1080,29.97,12.345,"h264",null]'],
    ['probed, the listing differs', { sha256: SHA, result: 'probed', probe, listed: { ...probe, width: 1280 } }, '[1920,1080,29.97,12.345,"h264",[1280,1080,29.97,12.345,"h264"]]'],
  ])('%s: kept compact and read back whole', (_, entry, json) => {
    expect(resultOf(entry)).toBe(json);
    expect(entryOf(resultOf(entry), SHA)).toEqual(entry);
  });

  it("reads schema 1's MediaEntry objects of the same version, and nothing else", () => {
    expect(entryOf(JSON.stringify({ sha256: SHA, result: 'probed', probe }), SHA)).toEqual({ sha256: SHA, result: 'probed', probe });
    expect(entryOf(JSON.stringify({ sha256: 'cd'.repeat(32), result: 'probed', probe }), SHA)).toBeUndefined();
    for (const bad of [undefined, '', 'nope', '1', '[1,2]', '[1,2,3,4,5]', '{"result":"unprobed"}', '[1,1,1,1,"h264",[1]]']) expect(entryOf(bad, SHA)).toBeUndefined();
  });
});

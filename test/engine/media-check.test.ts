// The media check's comparisons (docs/contracts.md §1, media.csv): tolerances, loose codec
// names, format by extension, and the words the app shows. Pure functions, no prober needed.
import { describe, expect, it } from 'vitest';
import { judge, sameCodec } from '../../src-main/sync/media/media-check';
import { reduceSyncEvents } from '../../src-renderer/stores/sync-reducer';
import { emptySyncView } from '../../src-renderer/stores/sync-view';

const rules = { min_width: 320, min_height: 240, min_fps: 24, min_duration: 2, max_duration: 120, formats: ['mp4', 'matroska'] };
const clip = { width: 320, height: 240, fps: 25, duration: 3, codec: 'h264' };

describe('media check', () => {
  it('keeps to the tolerances: fps within 1 %, duration within 0.1 s, codecs loosely', () => {
    const near = { sha256: 'a', result: 'probed' as const, probe: clip, listed: { ...clip, fps: 25.2, duration: 3.1, codec: 'avc1' } };
    expect(judge('sets/1/set_1_slot_01.mp4', near, rules)).toMatchObject({ rules: 'ok', listing: 'ok' });
    const far = { ...near, listed: { ...clip, fps: 25.3, duration: 3.2, codec: 'hevc' } };
    expect(judge('sets/1/set_1_slot_01.mp4', far, rules)).toMatchObject({ rules: 'ok', listing: 'fps;duration;codec' });
    expect(sameCodec('VP09', 'vp9')).toBe(true);
    expect(sameCodec('h264', 'hevc')).toBe(false);
  });

  it('names every broken rule in order, matroska is .mkv, and says it in plain words', () => {
    const slow = { sha256: 'a', result: 'probed' as const, probe: { ...clip, width: 160, height: 120, fps: 15, duration: 1 } };
    const v = judge('sets/1/set_1_slot_01.mkv', slow, rules);
    expect(v.rules).toBe('min_width;min_height;min_fps;min_duration');
    expect(v.words).toContain("Frame rate 15 fps is below the collection's minimum 24 fps");
    expect(judge('sets/1/set_1_slot_01.mov', { ...slow, probe: clip }, rules).rules).toBe('format');
    expect(judge('sets/1/set_1_slot_01.mp4', { sha256: 'a', result: 'unreadable' }, rules)).toMatchObject({ rules: 'unreadable', listing: '' });
    expect(judge('sets/1/set_1_slot_01.mp4', undefined, rules)).toMatchObject({ rules: 'unprobed', listing: '' });
  });

  it('the app keeps a file with a problem across runs until a check finds it ok', () => {
    const problem = { type: 'media' as const, setId: 1, path: 'sets/1/a.mp4', rules: 'min_fps', listing: 'ok', problems: ['Frame rate 15 fps is below'], probed: true };
    let view = reduceSyncEvents(emptySyncView(), [problem]);
    view = reduceSyncEvents(view, [{ type: 'start', collectionId: 1, dest: '/d', full: false, watermark: null }]);
    expect(view.mediaProblems['sets/1/a.mp4']).toMatchObject({ rules: 'min_fps' });
    view = reduceSyncEvents(view, [{ ...problem, rules: 'ok' }]);
    expect(view.mediaProblems).toEqual({});
  });
});

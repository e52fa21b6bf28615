// The media check's result as the store keeps it (a stage result, stages/stage.ts): JSON under the
// stage name 'media', one per version of a file; the store does not know this shape, this module
// writes and reads it. Compact, since a row is kept per file of the dataset (state/stage-results.ts:
// the scale bench holds the state to 500 B a file): `0` for a file no video stream could be read
// from; `[width, height, fps, duration, codec]` for a probed file whose listing said the same, with
// a sixth element for one whose listing differs (the listing's five values) or that had none
// (null). A MediaEntry object (the form of schema 1's files.media, moved over as it was) still reads.
import { MediaProbeSchema, type MediaProbe } from '../../../src-shared/delivery-api';
import type { MediaEntry } from './media-check';

export const MEDIA_STAGE = 'media';

type Five = [number, number, number, number, string];

const five = (p: MediaProbe): Five => [p.width, p.height, p.fps, p.duration, p.codec];
const sameProbe = (a: MediaProbe, b: MediaProbe) => a.width === b.width && a.height === b.height && a.fps === b.fps && a.duration === b.duration && a.codec === b.codec;

/** The JSON kept for a probed or unreadable file (an `unprobed` one has no result: it owes one). */
export function resultOf(entry: MediaEntry): string {
  if (entry.result !== 'probed' || !entry.probe) return '0';
  const p = entry.probe;
  const l = entry.listed;
  if (l === undefined) return JSON.stringify([...five(p), null]);
  return JSON.stringify(sameProbe(p, l) ? five(p) : [...five(p), five(l)]);
}

function probeOf(v: unknown): MediaProbe | undefined {
  if (!Array.isArray(v) || v.length !== 5) return undefined;
  const parsed = MediaProbeSchema.safeParse({ width: v[0], height: v[1], fps: v[2], duration: v[3], codec: v[4] });
  return parsed.success ? parsed.data : undefined;
}

/** The entry of this version (`sha256`) that `json` holds (the store gave it for that version); undefined when it does not read as one. */
export function entryOf(json: string | undefined, sha256: string): MediaEntry | undefined {
  if (json === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (v === 0) return { sha256, result: 'unreadable' };
  if (Array.isArray(v)) {
    const probe = probeOf(v.slice(0, 5));
    if (!probe) return undefined;
    if (v.length === 5) return { sha256, result: 'probed', probe, listed: probe };
    if (v[5] === null) return { sha256, result: 'probed', probe };
    const listed = probeOf(v[5]);
    return listed ? { sha256, result: 'probed', probe, listed } : undefined;
  }
  return entryOfObject(v, sha256);
}

/** Schema 1's form: a MediaEntry object with its own sha256. */
function entryOfObject(v: unknown, sha256: string): MediaEntry | undefined {
  const e = v as Partial<MediaEntry> | null;
  if (!e || typeof e !== 'object' || e.sha256 !== sha256) return undefined;
  if (e.result === 'unreadable') return { sha256, result: 'unreadable' };
  if (e.result !== 'probed') return undefined;
  const probe = MediaProbeSchema.safeParse(e.probe);
  if (!probe.success) return undefined;
  const listed = MediaProbeSchema.safeParse(e.listed);
  return { sha256, result: 'probed', probe: probe.data, ...(listed.success ? { listed: listed.data } : {}) };
}

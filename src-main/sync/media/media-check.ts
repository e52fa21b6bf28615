// A probed file against the collection's `media_rules` and against its listing's `media`
// (docs/contracts.md §1, media.csv): the rule names and field names of the contract, and the
// same findings in plain words for the app and the CLI. Pure: no I/O.
import type { MediaProbe } from '../../../src-shared/delivery-api';

/** What the engine records of a file's probe (FileEntry.media), once per verified sha256. */
export interface MediaEntry {
  /** The file's sha256 when probed: a new version of the file is probed again. */
  sha256: string;
  result: 'probed' | 'unreadable' | 'unprobed';
  /** The first video stream, when `probed`. */
  probe?: MediaProbe;
  /** The listing's `media` when probed (the listing changes only with the sha256, but a bad record may lack it). */
  listed?: MediaProbe;
}

/** The collection's media_rules as read from collection.json: any field may be missing. */
export interface Rules {
  min_width?: number;
  min_height?: number;
  min_fps?: number;
  min_duration?: number;
  max_duration?: number;
  formats?: string[];
}

export interface MediaVerdict {
  /** `ok`, or rule names joined with `;`, or `unreadable`, or `unprobed`. */
  rules: string;
  /** `ok`, or field names joined with `;`; empty when nothing was probed to compare. */
  listing: string;
  /** One sentence per finding, for people. */
  words: string[];
}

/** Container extensions of the spec's format names (`matroska` = `.mkv`). */
const FORMAT_EXTENSIONS: Record<string, string[]> = { matroska: ['mkv'], mp4: ['mp4'], mov: ['mov'], webm: ['webm'], avi: ['avi'] };

/** Codec names as containers and probers spell them, folded to one name (h264 = avc1...). */
const CODEC_ALIASES: Record<string, string> = {
  avc: 'h264',
  avc1: 'h264',
  'h.264': 'h264',
  hevc: 'h265',
  hvc1: 'h265',
  hev1: 'h265',
  'h.265': 'h265',
  vp09: 'vp9',
  vp08: 'vp8',
  av01: 'av1',
  mp4v: 'mpeg4',
  xvid: 'mpeg4',
  divx: 'mpeg4',
};

export function sameCodec(a: string, b: string): boolean {
  const fold = (c: string) => {
    const l = c.trim().toLowerCase();
    return CODEC_ALIASES[l] ?? l;
  };
  return fold(a) === fold(b);
}

function extOf(path: string): string {
  const dot = path.lastIndexOf('.');
  return dot < 0 ? '' : path.slice(dot + 1).toLowerCase();
}

const num = (n: number) => String(Math.round(n * 1000) / 1000);

/** The rules the probe breaks, in the contract's order, with their words. */
function brokenRules(path: string, p: MediaProbe, rules: Rules): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (rules.min_width !== undefined && p.width < rules.min_width) out.push(['min_width', `Width ${p.width} px is below the collection's minimum ${rules.min_width} px`]);
  if (rules.min_height !== undefined && p.height < rules.min_height) out.push(['min_height', `Height ${p.height} px is below the collection's minimum ${rules.min_height} px`]);
  if (rules.min_fps !== undefined && p.fps < rules.min_fps) out.push(['min_fps', `Frame rate ${num(p.fps)} fps is below the collection's minimum ${num(rules.min_fps)} fps`]);
  if (rules.min_duration !== undefined && p.duration < rules.min_duration)
    out.push(['min_duration', `Duration ${num(p.duration)} s is shorter than the collection's minimum ${num(rules.min_duration)} s`]);
  if (rules.max_duration !== undefined && p.duration > rules.max_duration)
    out.push(['max_duration', `Duration ${num(p.duration)} s is longer than the collection's maximum ${num(rules.max_duration)} s`]);
  if (rules.formats && rules.formats.length > 0) {
    const ext = extOf(path);
    const allowed = rules.formats.flatMap((f) => FORMAT_EXTENSIONS[f.toLowerCase()] ?? [f.toLowerCase()]);
    if (!allowed.includes(ext)) out.push(['format', `Format .${ext} is not one the collection takes (${rules.formats.join(', ')})`]);
  }
  return out;
}

/** The listing's fields that disagree with the probe (fps within 1 %, duration within 0.1 s, codecs loosely). */
function listingDisagrees(p: MediaProbe, l: Partial<MediaProbe>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (l.width !== undefined && l.width !== p.width) out.push(['width', `The listing says ${l.width} px wide, the file is ${p.width} px`]);
  if (l.height !== undefined && l.height !== p.height) out.push(['height', `The listing says ${l.height} px high, the file is ${p.height} px`]);
  if (l.fps !== undefined && Math.abs(l.fps - p.fps) > 0.01 * Math.max(l.fps, p.fps))
    out.push(['fps', `The listing says ${num(l.fps)} fps, the file plays at ${num(p.fps)} fps`]);
  if (l.duration !== undefined && Math.abs(l.duration - p.duration) > 0.1 + 1e-9)
    out.push(['duration', `The listing says ${num(l.duration)} s long, the file lasts ${num(p.duration)} s`]);
  if (l.codec !== undefined && !sameCodec(l.codec, p.codec)) out.push(['codec', `The listing says codec ${l.codec}, the file is ${p.codec}`]);
  return out;
}

/** The verdict on one file (`path` relative to DEST: its extension is the format checked). */
export function judge(path: string, entry: MediaEntry | undefined, rules: Rules): MediaVerdict {
  if (!entry || entry.result === 'unprobed') return { rules: 'unprobed', listing: '', words: ['Not checked yet: the media check was off, or the sync ended before it read this file'] };
  if (entry.result === 'unreadable' || !entry.probe) return { rules: 'unreadable', listing: '', words: ['No video stream could be read from the file'] };
  const broken = brokenRules(path, entry.probe, rules);
  const lies = entry.listed ? listingDisagrees(entry.probe, entry.listed) : [];
  return {
    rules: broken.length ? broken.map(([k]) => k).join(';') : 'ok',
    listing: lies.length ? lies.map(([k]) => k).join(';') : 'ok',
    words: [...broken, ...lies].map(([, w]) => w),
  };
}

/** media.csv's rule for `mediaProblems`: a file whose rules or listing is not `ok`. */
export function isProblem(v: MediaVerdict): boolean {
  return v.rules !== 'ok' || v.listing !== 'ok';
}

/** The media_rules of collection.json's text (as dataset.ts wrote it); {} when absent or unreadable. */
export function rulesOfCollectionJson(text: string | null): Rules {
  if (!text) return {};
  try {
    const rules = (JSON.parse(text) as { spec?: { media_rules?: unknown } }).spec?.media_rules;
    return rules && typeof rules === 'object' ? (rules as Rules) : {};
  } catch {
    return {};
  }
}

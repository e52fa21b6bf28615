// The MP4/MOV/3GP reader (ISO base media file format and QuickTime): walks the boxes in file order,
// going down only into the boxes that lead to what ffprobe reports (moov, trak, mdia, minf, stbl;
// mvex, moof and traf for fragmented files), reading only the small leaf boxes it needs (mvhd,
// tkhd, mdhd, hdlr, stsd, stts; trex, tfhd, tfdt, trun) and stepping over everything else, the
// media data first of all, by offset. A moov after the mdat costs nothing more: the mdat is
// stepped over, not read, and a file reader seeks past it (wants()).
//
// The numbers are ffprobe's (libavformat/mov.c), since media.csv compares them with a listing
// ffprobe made: width/height of the first 'vide' track's sample entry; r_frame_rate = the media
// timescale over the first stts delta when the table is one run (or one run and a last odd
// sample), else over the delta covering most samples; format.duration = mvhd duration over its
// timescale. In a fragmented file (one with trex boxes) ffprobe drops mvhd's duration, which covers
// only the moov's own samples, and mehd's with it: the duration is the longest track's end, its
// moov samples (stts) then each fragment's tfdt and trun sample durations, so every moof of the
// file is read (they are small; the mdat between them is stepped over).
import { codecOfObjectType, codecOfSampleEntry } from './codec-names';
import { round3, unreadable, WORDS, type FormatParser, type HeaderProbe, type Run } from './byte-feed';

/** Boxes gone down into, each under the box it belongs in (anything else of that name is stepped over). */
const CONTAINERS: Record<string, string> = { moov: '', trak: 'moov', mvex: 'moov', mdia: 'trak', minf: 'mdia', stbl: 'minf', moof: '', traf: 'moof' };
/** Leaf boxes read, each under its parent. */
const LEAVES: Record<string, string> = { mvhd: 'moov', tkhd: 'trak', mdhd: 'mdia', hdlr: 'mdia', stsd: 'stbl', stts: 'stbl', trex: 'mvex', tfhd: 'traf', tfdt: 'traf', trun: 'traf' };
/** Distinct sample durations counted per track: enough to find the dominant one of any sane file, and a bound on a hostile one. */
const MAX_DELTAS = 64;
/** Tracks read at most (a hostile moov of a million tiny traks must not become a million objects). */
const MAX_TRACKS = 256;

interface Track {
  id: number;
  handler: string;
  timescale: number;
  width: number;
  height: number;
  /** tkhd's presentation size (16.16), used only when the sample entry has none. */
  tkhdWidth: number;
  tkhdHeight: number;
  codec: string;
  /** stts: the first delta, whether ffprobe takes it as the rate (one run, or a run and one last sample), and the delta of most samples. */
  firstDelta: number;
  firstIsRate: boolean;
  dominantDelta: number;
  /** trex's default sample duration, for truns and tfhds that give none. */
  trexDuration: number;
  /** Where the track's samples end, in its timescale: its stts total, then each fragment's tfdt plus trun durations (ffmpeg's track_end). */
  end: number;
  /** Sample counts by trun sample duration (fragments). */
  fragDeltas: Map<number, number>;
}

interface Open {
  type: string;
  end: number;
}

const newTrack = (): Track => ({
  id: 0, handler: '', timescale: 0, width: 0, height: 0, tkhdWidth: 0, tkhdHeight: 0, codec: '',
  firstDelta: 0, firstIsRate: false, dominantDelta: 0, trexDuration: 0, end: 0, fragDeltas: new Map(),
});

const fourcc = (b: Buffer, at: number): string => b.toString('latin1', at, at + 4);

/** A 64-bit big-endian count, or NaN when a double cannot hold it exactly (no sane header has one). */
function uint64(b: Buffer, at: number): number {
  const hi = b.readUInt32BE(at);
  return hi >= 0x200000 ? NaN : hi * 0x1_0000_0000 + b.readUInt32BE(at + 4);
}

/** A full box's version-dependent (timescale, duration) pair of mvhd/mdhd; an all-ones duration means unknown (0). */
function timescaleAndDuration(b: Buffer): { timescale: number; duration: number } {
  if (b[0] === 1) {
    const d = b.readUInt32BE(24) === 0xffffffff && b.readUInt32BE(28) === 0xffffffff ? 0 : uint64(b, 24);
    return { timescale: b.readUInt32BE(20), duration: Number.isNaN(d) ? 0 : d };
  }
  const d = b.readUInt32BE(16);
  return { timescale: b.readUInt32BE(12), duration: d === 0xffffffff ? 0 : d };
}

/** The delta of the most samples in a histogram. */
function dominant(counts: Map<number, number>): number {
  let best = 0;
  let most = 0;
  for (const [delta, n] of counts) if (delta > 0 && n > most) [best, most] = [delta, n];
  return best;
}

export class Mp4Parser implements FormatParser {
  private readonly stack: Open[] = [];
  /** The box whose header is being read (its largesize, when its size field is 1). */
  private boxAt = 0;
  private readingLargeSize = false;
  private pendingType = '';
  /** The leaf box whose payload was asked for. */
  private leaf = '';
  /** Where the last box header asked for is. */
  private headerAt = 0;
  private readonly tracks: Track[] = [];
  private track: Track | null = null;
  /** The traf being read: its track and tfhd default sample duration. */
  private trafTrack: Track | null = null;
  private trafDuration = 0;
  private movieTimescale = 0;
  private movieDuration = 0;
  private moovStarted = false;
  private moovDone = false;
  /** trex seen: the file is fragmented, and its duration is its tracks' (see the header). */
  private fragmented = false;
  private failure: string | null = null;

  start(): Run {
    return { at: 0, length: 8 };
  }

  take(bytes: Buffer, at: number): Run | null {
    if (this.readingLargeSize) return this.boxFound(this.boxAt, this.pendingType, uint64(bytes, 0), 16);
    if (this.leaf) {
      const leaf = this.leaf;
      this.leaf = '';
      this.readLeaf(leaf, bytes);
      return this.nextBox(at + bytes.length);
    }
    const size = bytes.readUInt32BE(0);
    const type = fourcc(bytes, 4);
    if (size === 1) {
      this.boxAt = at;
      this.pendingType = type;
      this.readingLargeSize = true;
      return { at: at + 8, length: 8 };
    }
    // Size 0: the box runs to the end of the file (of its parent, for a sloppy writer).
    return this.boxFound(at, type, size === 0 ? Infinity : size, 8);
  }

  verdict(totalSize: number, feedFailure: string | null): HeaderProbe {
    // A fault past a whole moov (in a later fragment) leaves what the moov said standing, as ffprobe does.
    const failure = this.failure ?? feedFailure;
    // A moov the file ends in at a box boundary (one of size 0, "to the end", or one cut short between its boxes) is read as far as it goes, as ffprobe does.
    const endedInMoov = this.moovStarted && failure === null && !this.leaf && !this.readingLargeSize && this.headerAt >= totalSize;
    if (!this.moovDone && !endedInMoov) return unreadable(failure ?? (this.moovStarted ? WORDS.truncated : 'the file has no movie header (moov box)'));
    const video = this.tracks.find((t) => t.handler === 'vide');
    if (!video || !video.codec) return unreadable(!this.moovDone ? WORDS.truncated : video ? 'the video track has no sample description' : WORDS.noVideo);
    const width = video.width || video.tkhdWidth;
    const height = video.height || video.tkhdHeight;
    if (!width || !height) return unreadable('the video track gives no picture size');
    return { kind: 'probed', media: { width, height, fps: round3(this.fpsOf(video)), duration: round3(this.duration()), codec: video.codec } };
  }

  private fpsOf(t: Track): number {
    const delta = t.firstIsRate ? t.firstDelta : t.dominantDelta || dominant(t.fragDeltas);
    return t.timescale > 0 && delta > 0 ? t.timescale / delta : 0;
  }

  private duration(): number {
    if (!this.fragmented && this.movieTimescale > 0 && this.movieDuration > 0) return this.movieDuration / this.movieTimescale;
    let longest = 0;
    for (const t of this.tracks) if (t.timescale > 0) longest = Math.max(longest, t.end / t.timescale);
    return longest;
  }

  private fail(detail: string): null {
    this.failure = detail;
    return null;
  }

  /** A box's header is read: go down into it, read it, or step over it. */
  private boxFound(at: number, type: string, size: number, headerBytes: number): Run | null {
    this.readingLargeSize = false;
    const parent = this.stack.at(-1);
    if (Number.isNaN(size)) return this.fail(WORDS.damaged);
    // A size smaller than its header ends the enclosing box there, as in ffmpeg (the walk, at the top level).
    if (size < headerBytes) return parent && parent.end !== Infinity ? this.nextBox(parent.end) : null;
    const end = Math.min(at + size, parent ? parent.end : Infinity);
    const payloadAt = at + headerBytes;
    if (end < payloadAt) return this.fail(WORDS.damaged);
    const parentType = parent?.type ?? '';
    if (CONTAINERS[type] === parentType && this.opens(type)) {
      this.stack.push({ type, end });
      return this.nextBox(payloadAt);
    }
    if (LEAVES[type] === parentType && end > payloadAt) {
      if (end === Infinity) return this.fail(WORDS.damaged);
      this.leaf = type;
      return { at: payloadAt, length: end - payloadAt };
    }
    // Stepped over; a box to the end of the file ends the walk there.
    return end === Infinity ? null : this.nextBox(end);
  }

  /** Whether a container box is gone down into (only the first moov; a moof once the moov is known). */
  private opens(type: string): boolean {
    if (type === 'moov') {
      if (this.moovStarted) return false;
      this.moovStarted = true;
    }
    if (type === 'trak') {
      if (this.tracks.length >= MAX_TRACKS) return false;
      this.tracks.push((this.track = newTrack()));
    }
    if (type === 'moof' && !this.moovDone) return false;
    if (type === 'traf') {
      this.trafTrack = null;
      this.trafDuration = 0;
    }
    return true;
  }

  /** The next box header at `at`, closing the containers that end there; null once nothing more is needed. */
  private nextBox(at: number): Run | null {
    for (;;) {
      const top = this.stack.at(-1);
      // A parent with less than a box header left ends here (QuickTime's 4-byte terminators, padding).
      if (!top || at + 8 <= top.end) break;
      this.stack.pop();
      if (top.type === 'trak') this.track = null;
      if (top.type === 'moov') this.moovDone = true;
      at = Math.max(at, top.end);
      if (this.enough()) return null;
    }
    this.headerAt = at;
    return { at, length: 8 };
  }

  /** Whether the walk has all it needs: a whole moov, and for a fragmented file with video, every fragment. */
  private enough(): boolean {
    return this.moovDone && (!this.fragmented || !this.tracks.some((t) => t.handler === 'vide'));
  }

  private readLeaf(type: string, b: Buffer): void {
    const t = this.track;
    switch (type) {
      case 'mvhd': {
        const { timescale, duration } = timescaleAndDuration(b);
        this.movieTimescale = timescale;
        this.movieDuration = duration;
        return;
      }
      case 'tkhd':
        if (t) {
          t.id = b.readUInt32BE(b[0] === 1 ? 20 : 12);
          if (b.length >= 84) {
            t.tkhdWidth = b.readUInt32BE(b.length - 8) >>> 16;
            t.tkhdHeight = b.readUInt32BE(b.length - 4) >>> 16;
          }
        }
        return;
      case 'mdhd':
        if (t) t.timescale = timescaleAndDuration(b).timescale;
        return;
      case 'hdlr':
        if (t) t.handler = fourcc(b, 8);
        return;
      case 'stsd':
        if (t) this.readSampleEntry(t, b);
        return;
      case 'stts':
        if (t) this.readStts(t, b);
        return;
      case 'trex': {
        this.fragmented = true;
        const trex = this.tracks.find((x) => x.id === b.readUInt32BE(4));
        if (trex) trex.trexDuration = b.readUInt32BE(12);
        return;
      }
      case 'tfhd':
        this.readTfhd(b);
        return;
      case 'tfdt':
        if (this.trafTrack) {
          const d = b[0] === 1 ? uint64(b, 4) : b.readUInt32BE(4);
          if (!Number.isNaN(d)) this.trafTrack.end = d;
        }
        return;
      case 'trun':
        this.readTrun(b);
        return;
    }
  }

  /** The first sample entry of stsd: its type names the codec, its visual fields give the size. */
  private readSampleEntry(t: Track, b: Buffer): void {
    if (b.length < 16 || b.readUInt32BE(4) === 0) return;
    const size = Math.min(b.readUInt32BE(8), b.length - 8);
    const entry = b.subarray(8, 8 + size);
    let type = fourcc(entry, 4);
    // A visual sample entry: 8-byte box header, 24 bytes of reserved and predefined fields, width, height, then 50 more bytes before its child boxes.
    if (entry.length >= 36) {
      t.width = entry.readUInt16BE(32);
      t.height = entry.readUInt16BE(34);
    }
    const children = entry.subarray(Math.min(86, entry.length));
    // Encrypted entries (encv) name their real format in sinf/frma.
    if (type === 'encv') {
      const sinf = findBox(children, 'sinf');
      const frma = sinf && findBox(sinf, 'frma');
      if (frma && frma.length >= 4) type = fourcc(frma, 0);
    }
    t.codec = codecOfSampleEntry(type);
    if (type === 'mp4v') {
      const esds = findBox(children, 'esds');
      const oti = esds ? objectTypeOf(esds) : undefined;
      t.codec = (oti !== undefined && codecOfObjectType(oti)) || t.codec;
    }
  }

  private readStts(t: Track, b: Buffer): void {
    const entries = Math.min(b.readUInt32BE(4), Math.floor((b.length - 8) / 8));
    if (entries <= 0) return;
    const counts = new Map<number, number>();
    for (let i = 0; i < entries; i++) {
      const count = b.readUInt32BE(8 + i * 8);
      const delta = b.readUInt32BE(12 + i * 8);
      addCount(counts, delta, count);
      t.end += count * delta;
    }
    t.firstDelta = b.readUInt32BE(12);
    t.firstIsRate = entries === 1 || (entries === 2 && b.readUInt32BE(16) === 1);
    t.dominantDelta = dominant(counts);
  }

  private readTfhd(b: Buffer): void {
    const flags = b.readUInt32BE(0) & 0xffffff;
    const track = this.tracks.find((x) => x.id === b.readUInt32BE(4)) ?? null;
    this.trafTrack = track;
    let at = 8;
    if (flags & 0x1) at += 8;
    if (flags & 0x2) at += 4;
    this.trafDuration = flags & 0x8 ? b.readUInt32BE(at) : (track?.trexDuration ?? 0);
  }

  private readTrun(b: Buffer): void {
    const t = this.trafTrack;
    if (!t) return;
    const flags = b.readUInt32BE(0) & 0xffffff;
    const samples = b.readUInt32BE(4);
    let at = 8 + (flags & 0x1 ? 4 : 0) + (flags & 0x4 ? 4 : 0);
    if (!(flags & 0x100)) {
      t.end += samples * this.trafDuration;
      addCount(t.fragDeltas, this.trafDuration, samples);
      return;
    }
    const stride = 4 * (1 + (flags & 0x200 ? 1 : 0) + (flags & 0x400 ? 1 : 0) + (flags & 0x800 ? 1 : 0));
    const n = Math.min(samples, Math.floor((b.length - at) / stride));
    for (let i = 0; i < n; i++, at += stride) {
      const d = b.readUInt32BE(at);
      t.end += d;
      addCount(t.fragDeltas, d, 1);
    }
  }
}

/** Counts `samples` more of sample duration `delta` (new durations past MAX_DELTAS are not counted). */
function addCount(counts: Map<number, number>, delta: number, samples: number): void {
  if (samples > 0 && (counts.has(delta) || counts.size < MAX_DELTAS)) counts.set(delta, (counts.get(delta) ?? 0) + samples);
}

/** The payload of the first child box of `type` in a run of boxes. */
function findBox(b: Buffer, type: string): Buffer | undefined {
  for (let at = 0; at + 8 <= b.length; ) {
    const size = b.readUInt32BE(at);
    if (size < 8 || at + size > b.length) return undefined;
    if (fourcc(b, at + 4) === type) return b.subarray(at + 8, at + size);
    at += size;
  }
  return undefined;
}

/** An esds's DecoderConfigDescriptor objectTypeIndication (ISO 14496-1 descriptors: tag, 1-4 byte size). */
function objectTypeOf(esds: Buffer): number | undefined {
  let at = 4;
  const descriptor = (): number => {
    const tag = esds[at++];
    for (let i = 0; i < 4 && at < esds.length; i++) if (!((esds[at++] ?? 0) & 0x80)) break;
    return tag ?? -1;
  };
  if (descriptor() !== 0x03) return undefined;
  const flags = esds[at + 2] ?? 0;
  at += 3;
  if (flags & 0x80) at += 2;
  if (flags & 0x40) at += 1 + (esds[at] ?? 0);
  if (flags & 0x20) at += 2;
  if (descriptor() !== 0x04) return undefined;
  return esds[at];
}

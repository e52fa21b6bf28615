// The Matroska/WebM reader (EBML): walks the elements in file order, going down only into those on
// the way to what ffprobe reports (Segment, Info, Tracks, TrackEntry, Video; Cluster and BlockGroup
// when the headers lack a duration or a frame duration) and stepping over the rest (SeekHead,
// Cues, Tags, Attachments, block payloads) by offset, without reading them.
//
// ffprobe's numbers (libavformat/matroskadec.c): width/height = PixelWidth/PixelHeight of the first
// video TrackEntry (TrackType 1); r_frame_rate = 1e9 / DefaultDuration; format.duration = Info's
// Duration x TimestampScale. A file a browser's MediaRecorder made has neither Duration nor
// DefaultDuration, and often Segment and Clusters of unknown size: ffprobe then says no duration at
// all (N/A) and guesses the rate from the first timestamps. The reader reads instead the 4-byte
// header of each of the video track's blocks (track number and timestamp, not the frame), and
// gives the span of those timestamps plus one frame as the duration and the mean frame interval,
// snapped to a common rate when within 0.5 %, as the rate: the numbers a person would expect.
import { codecOfFourccOrTag, codecOfMatroskaId, codecOfSampleEntry, plainCodecId } from './codec-names';
import { round3, unreadable, WORDS, type FormatParser, type HeaderProbe, type Run } from './byte-feed';

const ID = {
  EBML: 0x1a45dfa3,
  Segment: 0x18538067,
  Info: 0x1549a966,
  TimestampScale: 0x2ad7b1,
  Duration: 0x4489,
  Tracks: 0x1654ae6b,
  TrackEntry: 0xae,
  TrackNumber: 0xd7,
  TrackType: 0x83,
  CodecID: 0x86,
  CodecPrivate: 0x63a2,
  DefaultDuration: 0x23e383,
  Video: 0xe0,
  PixelWidth: 0xb0,
  PixelHeight: 0xba,
  Cluster: 0x1f43b675,
  Timestamp: 0xe7,
  SimpleBlock: 0xa3,
  BlockGroup: 0xa0,
  Block: 0xa1,
} as const;

/** Masters gone down into, each under its parent (0: the top level). */
const MASTERS = new Map<number, number>([
  [ID.Segment, 0],
  [ID.Info, ID.Segment],
  [ID.Tracks, ID.Segment],
  [ID.TrackEntry, ID.Tracks],
  [ID.Video, ID.TrackEntry],
  [ID.Cluster, ID.Segment],
  [ID.BlockGroup, ID.Cluster],
]);

/** Leaves read, each under its parent. */
const LEAVES = new Map<number, number>([
  [ID.TimestampScale, ID.Info],
  [ID.Duration, ID.Info],
  [ID.TrackNumber, ID.TrackEntry],
  [ID.TrackType, ID.TrackEntry],
  [ID.CodecID, ID.TrackEntry],
  [ID.CodecPrivate, ID.TrackEntry],
  [ID.DefaultDuration, ID.TrackEntry],
  [ID.PixelWidth, ID.Video],
  [ID.PixelHeight, ID.Video],
  [ID.Timestamp, ID.Cluster],
]);

/** Elements that can only be children of a Segment (or begin a new file): one ends a Cluster of unknown size. */
const SEGMENT_LEVEL = new Set([ID.EBML, ID.Segment, 0x114d9b74, ID.Info, ID.Tracks, ID.Cluster, 0x1c53bb6b, 0x1043a770, 0x1254c367, 0x1941a469]);

/**
 * The largest leaf read, by ID (numbers and floats: 8 bytes); a bigger one is stepped over. A
 * CodecPrivate is read only for the VFW/QuickTime tag in its first bytes (an h264 avcC is ~40 bytes).
 */
const LEAF_LIMITS = new Map<number, number>([
  [ID.CodecID, 1024],
  [ID.CodecPrivate, 1024 * 1024],
]);
/** Block header bytes read: track number (1-8 bytes), 16-bit relative timestamp. */
const BLOCK_HEADER_BYTES = 10;
/** Tracks read at most, and distinct track numbers whose block timestamps are kept (a bound on a hostile file). */
const MAX_TRACKS = 64;
/** Frame rates a computed mean rate snaps to, when within 0.5 %. */
const COMMON_RATES = [24000 / 1001, 24, 25, 30000 / 1001, 30, 48, 50, 60000 / 1001, 60];

interface TrackEntry {
  number: number;
  type: number;
  codecId: string;
  /** The first bytes of CodecPrivate (a BITMAPINFOHEADER for V_MS/VFW/FOURCC, a sample entry for V_QUICKTIME). */
  codecPrivate: Buffer | null;
  defaultDuration: number;
  width: number;
  height: number;
}

/** A track's block timestamps, in TimestampScale units. */
interface Blocks {
  count: number;
  min: number;
  max: number;
}

interface Open {
  id: number;
  /** Where it ends (its parent's end, for one of unknown size). */
  end: number;
  unknownSize: boolean;
}

/** The length of a variable-size integer from its first byte (1-8; 9 when the byte is 0, which no valid one has). */
const vintLength = (first: number): number => (first === 0 ? 9 : Math.clz32(first) - 23);

/** An unsigned integer of 0-8 bytes, or NaN past 2^53. */
function uint(b: Buffer, from = 0, to = b.length): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 256 + b[i]!;
  return Number.isSafeInteger(n) ? n : NaN;
}

export class MatroskaParser implements FormatParser {
  private readonly stack: Open[] = [];
  /** The element header being gathered (12 bytes hold the longest: a 4-byte ID and an 8-byte size). */
  private readonly header = Buffer.alloc(12);
  private headerAt = 0;
  private headerBytes = 0;
  /** What the run asked for is: an element header, a leaf's payload, or a block's first bytes. */
  private reading: 'header' | 'leaf' | 'block' = 'header';
  private leafId = 0;
  /** Where the element whose leaf or block header is being read ends. */
  private elementEnd = 0;
  private timestampScale = 1_000_000;
  private duration = 0;
  private infoDone = false;
  private tracksDone = false;
  private readonly tracks: TrackEntry[] = [];
  private track: TrackEntry | null = null;
  private clusterTimestamp = 0;
  private readonly blocks = new Map<number, Blocks>();
  private failure: string | null = null;

  start(): Run {
    return this.headerRun(0);
  }

  take(bytes: Buffer, at: number): Run | null {
    if (this.reading === 'leaf') {
      this.readLeaf(this.leafId, bytes);
      return this.nextElement(this.elementEnd);
    }
    if (this.reading === 'block') {
      this.readBlockHeader(bytes);
      return this.nextElement(this.elementEnd);
    }
    bytes.copy(this.header, this.headerBytes);
    this.headerBytes += bytes.length;
    const h = this.header;
    const idLength = vintLength(h[0]!);
    if (idLength > 4) return this.fail(WORDS.damaged);
    if (this.headerBytes < idLength + 1) return { at: at + bytes.length, length: idLength + 1 - this.headerBytes };
    const sizeLength = vintLength(h[idLength]!);
    if (sizeLength > 8) return this.fail(WORDS.damaged);
    if (this.headerBytes < idLength + sizeLength) return { at: at + bytes.length, length: idLength + sizeLength - this.headerBytes };
    const id = uint(h, 0, idLength);
    // The size without its length marker; all ones means "unknown" (a live stream's Segment and Clusters).
    const first = h[idLength]! & (0xff >> sizeLength);
    const rest = h.subarray(idLength + 1, idLength + sizeLength);
    if (first === 0xff >> sizeLength && rest.every((x) => x === 0xff)) return this.elementFound(id, this.headerAt + idLength + sizeLength, Infinity);
    const size = first * 2 ** (8 * (sizeLength - 1)) + uint(rest);
    if (!Number.isSafeInteger(size)) return this.fail(WORDS.damaged);
    return this.elementFound(id, this.headerAt + idLength + sizeLength, size);
  }

  verdict(_totalSize: number, feedFailure: string | null): HeaderProbe {
    const failure = this.failure ?? feedFailure;
    const video = this.tracks.find((t) => t.type === 1);
    if (!video) return unreadable(this.tracksDone ? WORDS.noVideo : (failure ?? WORDS.truncated));
    if (!video.width || !video.height) return unreadable('the video track gives no picture size');
    const seen = this.blocks.get(video.number);
    const scale = this.timestampScale / 1e9;
    let fps = video.defaultDuration > 0 ? 1e9 / video.defaultDuration : 0;
    if (!fps && seen && seen.count > 1 && seen.max > seen.min) fps = snap((seen.count - 1) / ((seen.max - seen.min) * scale));
    let duration = this.duration * scale;
    if (!duration && seen) duration = (seen.max - seen.min) * scale + (fps > 0 ? 1 / fps : 0);
    return { kind: 'probed', media: { width: video.width, height: video.height, fps: round3(fps), duration: round3(duration), codec: codecOf(video) } };
  }

  private fail(detail: string): null {
    this.failure = detail;
    return null;
  }

  private headerRun(at: number): Run {
    this.reading = 'header';
    this.headerAt = at;
    this.headerBytes = 0;
    // Every element has at least a 1-byte ID and a 1-byte size.
    return { at, length: 2 };
  }

  private elementFound(id: number, dataAt: number, size: number): Run | null {
    // An element that cannot be inside the open master of unknown size ends it (a new Cluster ends the last).
    for (let top = this.stack.at(-1); top?.unknownSize; top = this.stack.at(-1)) {
      const endsIt = top.id === ID.Cluster ? SEGMENT_LEVEL.has(id) : top.id === ID.Segment && (id === ID.EBML || id === ID.Segment);
      if (!endsIt) break;
      this.stack.pop();
      if (this.closed(top.id)) return null;
    }
    const parent = this.stack.at(-1);
    const parentId = parent?.id ?? 0;
    const end = Math.min(dataAt + size, parent?.end ?? Infinity);
    if (MASTERS.get(id) === parentId && this.opens(id, size)) {
      this.stack.push({ id, end, unknownSize: size === Infinity });
      return this.nextElement(dataAt);
    }
    // Nothing but a Segment or a Cluster may be of unknown size: anything else cannot be stepped over.
    if (end === Infinity) return this.fail(WORDS.damaged);
    this.elementEnd = end;
    if (LEAVES.get(id) === parentId && end > dataAt && end - dataAt <= (LEAF_LIMITS.get(id) ?? 8)) {
      this.reading = 'leaf';
      this.leafId = id;
      return { at: dataAt, length: end - dataAt };
    }
    if ((id === ID.SimpleBlock && parentId === ID.Cluster) || (id === ID.Block && parentId === ID.BlockGroup)) {
      if (end - dataAt >= 3) {
        this.reading = 'block';
        return { at: dataAt, length: Math.min(BLOCK_HEADER_BYTES, end - dataAt) };
      }
    }
    return this.nextElement(end);
  }

  /** Whether a master is gone down into: a Segment and the masters of the first one only. */
  private opens(id: number, size: number): boolean {
    if (size === Infinity && id !== ID.Segment && id !== ID.Cluster) return false;
    if (id === ID.Info && this.infoDone) return false;
    if (id === ID.Tracks && this.tracksDone) return false;
    if (id === ID.TrackEntry) {
      if (this.tracks.length >= MAX_TRACKS) return false;
      this.tracks.push((this.track = { number: 0, type: 0, codecId: '', codecPrivate: null, defaultDuration: 0, width: 0, height: 0 }));
    }
    if (id === ID.Cluster) this.clusterTimestamp = 0;
    return true;
  }

  /** The next element at `at`, closing the masters that end there; null once nothing more is needed. */
  private nextElement(at: number): Run | null {
    for (;;) {
      const top = this.stack.at(-1);
      if (!top || at + 2 <= top.end) break;
      this.stack.pop();
      if (this.closed(top.id)) return null;
      at = Math.max(at, top.end);
    }
    return this.headerRun(at);
  }

  /** A master has ended: whether the reading has then ended too (all needed, or the first Segment done). */
  private closed(id: number): boolean {
    if (id === ID.Segment) return true;
    if (id === ID.Info) this.infoDone = true;
    if (id === ID.Tracks) this.tracksDone = true;
    if (id === ID.TrackEntry) this.track = null;
    if (!this.infoDone || !this.tracksDone) return false;
    const video = this.tracks.find((t) => t.type === 1);
    return !video || (this.duration > 0 && video.defaultDuration > 0);
  }

  private readLeaf(id: number, b: Buffer): void {
    const t = this.track;
    const n = b.length <= 8 ? uint(b) : NaN;
    switch (id) {
      case ID.TimestampScale:
        if (n > 0) this.timestampScale = n;
        return;
      case ID.Duration: {
        const d = b.length === 4 ? b.readFloatBE(0) : b.length === 8 ? b.readDoubleBE(0) : NaN;
        if (Number.isFinite(d) && d > 0) this.duration = d;
        return;
      }
      case ID.Timestamp:
        if (Number.isFinite(n)) this.clusterTimestamp = n;
        return;
    }
    if (!t) return;
    if (id === ID.CodecID) t.codecId = b.toString('latin1').replace(/\0+$/, '');
    else if (id === ID.CodecPrivate) t.codecPrivate = Buffer.from(b.subarray(0, 64));
    else if (Number.isFinite(n)) {
      if (id === ID.TrackNumber) t.number = n;
      else if (id === ID.TrackType) t.type = n;
      else if (id === ID.DefaultDuration) t.defaultDuration = n;
      else if (id === ID.PixelWidth) t.width = n;
      else if (id === ID.PixelHeight) t.height = n;
    }
  }

  /** A block's track number (a vint) and its timestamp relative to the cluster's (signed 16 bits). */
  private readBlockHeader(b: Buffer): void {
    const length = vintLength(b[0]!);
    if (length + 2 > b.length) return;
    const track = (b[0]! & (0xff >> length)) * 2 ** (8 * (length - 1)) + uint(b, 1, length);
    const time = this.clusterTimestamp + b.readInt16BE(length);
    const seen = this.blocks.get(track);
    if (seen) {
      seen.count++;
      seen.min = Math.min(seen.min, time);
      seen.max = Math.max(seen.max, time);
    } else if (this.blocks.size < MAX_TRACKS) this.blocks.set(track, { count: 1, min: time, max: time });
  }
}

/** A mean rate computed from timestamps (rounded to the timestamp unit), snapped to the common rate it stands for. */
function snap(fps: number): number {
  const near = COMMON_RATES.find((r) => Math.abs(fps - r) <= 0.005 * r);
  return near ?? fps;
}

function codecOf(t: TrackEntry): string {
  const p = t.codecPrivate;
  // VFW-in-Matroska: a BITMAPINFOHEADER whose biCompression is the AVI fourcc.
  if (t.codecId === 'V_MS/VFW/FOURCC' && p && p.length >= 20) return codecOfFourccOrTag(p.toString('latin1', 16, 20));
  // QuickTime-in-Matroska: a sample description, its type at bytes 4-8 (some muxers give the bare fourcc).
  if (t.codecId === 'V_QUICKTIME' && p && p.length >= 4) return codecOfSampleEntry(p.length >= 8 ? p.toString('latin1', 4, 8) : p.toString('latin1', 0, 4));
  return codecOfMatroskaId(t.codecId) ?? plainCodecId(t.codecId);
}

// The AVI reader (RIFF): everything ffprobe reports of an AVI is in its header list, 'hdrl', at the
// start of the file: the main header (avih) and one 'strl' list per stream (strh: type, handler,
// rate, length; strf: for video, a BITMAPINFOHEADER with the picture size and the compression
// fourcc). The reader reads those few small chunks, steps over the rest (JUNK, odml, vprp...), and
// is done when hdrl ends, before the media data ('movi') and the index ('idx1').
//
// ffprobe's numbers (libavformat/avidec.c): width, |height| and codec from strf; r_frame_rate =
// dwRate/dwScale of the first video stream; format.duration = the longest stream of those whose
// length counts whole frames or packets (dwSampleSize 0: video, VBR audio) as dwLength x dwScale /
// dwRate. PCM audio's length counts bytes, and ffprobe leaves such a stream without a duration.
import { codecOfFourcc, codecOfFourccOrTag } from './codec-names';
import { round3, unreadable, WORDS, type FormatParser, type HeaderProbe, type Run } from './byte-feed';

/** Bytes read of the chunks that matter (the rest of a chunk, e.g. a strf's palette or extradata, is stepped over). */
const READ = new Map([
  ['avih', 40],
  ['strh', 48],
  ['strf', 20],
]);
/** Streams read at most (a bound on a hostile header). */
const MAX_STREAMS = 64;

interface Stream {
  type: string;
  handler: string;
  scale: number;
  rate: number;
  length: number;
  sampleSize: number;
  width: number;
  height: number;
  compression: string | null;
}

interface Open {
  type: string;
  end: number;
}

const fourcc = (b: Buffer, at: number): string => b.toString('latin1', at, at + 4);

export class AviParser implements FormatParser {
  private readonly stack: Open[] = [];
  /** What the run asked for is: the RIFF header, a chunk header, a LIST's type, or a chunk's first bytes. */
  private reading: 'riff' | 'chunk' | 'listType' | 'leaf' = 'riff';
  private chunkId = '';
  private chunkEnd = 0;
  /** avih: the frame period, the frame count and the picture size, used only when the streams' headers lack them. */
  private microSecPerFrame = 0;
  private totalFrames = 0;
  private width = 0;
  private height = 0;
  private readonly streams: Stream[] = [];
  private hdrlDone = false;
  private failure: string | null = null;

  start(): Run {
    return { at: 0, length: 12 };
  }

  take(bytes: Buffer, at: number): Run | null {
    switch (this.reading) {
      case 'riff':
        if (fourcc(bytes, 0) !== 'RIFF' || fourcc(bytes, 8) !== 'AVI ') return this.fail('not a video container we can read');
        return this.chunkRun(12);
      case 'chunk': {
        this.chunkId = fourcc(bytes, 0);
        const size = bytes.readUInt32LE(4);
        const parent = this.stack.at(-1);
        // Chunks are padded to an even length.
        this.chunkEnd = Math.min(at + 8 + size + (size & 1), parent?.end ?? Infinity);
        if (this.chunkId === 'LIST' && size >= 4) {
          this.reading = 'listType';
          return { at: at + 8, length: 4 };
        }
        const read = READ.get(this.chunkId);
        if (read !== undefined && parent?.type === (this.chunkId === 'avih' ? 'hdrl' : 'strl') && this.chunkEnd > at + 8) {
          this.reading = 'leaf';
          return { at: at + 8, length: Math.min(read, this.chunkEnd - at - 8) };
        }
        return this.chunkRun(this.chunkEnd);
      }
      case 'listType': {
        const type = fourcc(bytes, 0);
        const parentType = this.stack.at(-1)?.type ?? '';
        // The media data begins: the header is whole.
        if (type === 'movi') return this.headerEnded();
        if ((type === 'hdrl' && parentType === '') || (type === 'strl' && parentType === 'hdrl' && this.streams.length < MAX_STREAMS)) {
          if (type === 'strl') this.streams.push({ type: '', handler: '', scale: 0, rate: 0, length: 0, sampleSize: 0, width: 0, height: 0, compression: null });
          this.stack.push({ type, end: this.chunkEnd });
          return this.chunkRun(at + 4);
        }
        return this.chunkRun(this.chunkEnd);
      }
      case 'leaf':
        this.readChunk(this.chunkId, bytes);
        return this.chunkRun(this.chunkEnd);
    }
  }

  verdict(_totalSize: number, feedFailure: string | null): HeaderProbe {
    const failure = this.failure ?? feedFailure;
    if (!this.hdrlDone) return unreadable(failure ?? WORDS.truncated);
    const video = this.streams.find((s) => s.type === 'vids');
    if (!video) return unreadable(WORDS.noVideo);
    const width = video.width || this.width;
    const height = video.height || this.height;
    if (!width || !height) return unreadable('the video stream gives no picture size');
    let duration = 0;
    for (const s of this.streams) if (s.type && s.rate && (s.type === 'vids' || s.sampleSize === 0)) duration = Math.max(duration, (s.length * s.scale) / s.rate);
    if (!duration) duration = (this.totalFrames * this.microSecPerFrame) / 1e6;
    const codec = (video.compression !== null && codecOfFourcc(video.compression)) || codecOfFourccOrTag(video.compression ?? video.handler);
    return { kind: 'probed', media: { width, height, fps: round3(video.rate / video.scale), duration: round3(duration), codec } };
  }

  private fail(detail: string): null {
    this.failure = detail;
    return null;
  }

  private headerEnded(): null {
    this.hdrlDone = true;
    return null;
  }

  /** The next chunk header at `at`, closing the lists that end there; null once hdrl has ended. */
  private chunkRun(at: number): Run | null {
    for (;;) {
      const top = this.stack.at(-1);
      if (!top || at + 8 <= top.end) break;
      this.stack.pop();
      if (top.type === 'hdrl') return this.headerEnded();
      at = Math.max(at, top.end);
    }
    this.reading = 'chunk';
    return { at, length: 8 };
  }

  private readChunk(id: string, b: Buffer): void {
    const s = this.streams.at(-1);
    if (id === 'avih') {
      if (b.length < 40) return;
      this.microSecPerFrame = b.readUInt32LE(0);
      this.totalFrames = b.readUInt32LE(16);
      this.width = b.readUInt32LE(32);
      this.height = b.readUInt32LE(36);
      return;
    }
    if (!s) return;
    if (id === 'strh' && b.length >= 36) {
      s.type = fourcc(b, 0);
      s.handler = fourcc(b, 4);
      s.scale = b.readUInt32LE(20);
      s.rate = b.readUInt32LE(24);
      s.length = b.readUInt32LE(32);
      s.sampleSize = s.type === 'vids' || b.length < 48 ? 0 : b.readUInt32LE(44);
      // ffmpeg's repair of a zero rate or scale: the main header's frame period, else 25 fps.
      if (!s.scale || !s.rate) [s.scale, s.rate] = this.microSecPerFrame ? [this.microSecPerFrame, 1_000_000] : [1, 25];
    } else if (id === 'strf' && s.type === 'vids' && b.length >= 20) {
      s.width = Math.abs(b.readInt32LE(4));
      s.height = Math.abs(b.readInt32LE(8));
      s.compression = fourcc(b, 16);
    }
  }
}

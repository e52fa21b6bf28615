// What a video file is (width, height, frame rate, duration, codec: the fields media.csv checks),
// read in-process from its container's headers as its bytes stream past the hash, in order, once,
// with no seeking and no local copy (a bucket destination has none). It replaces a process of
// ffprobe per file (prober.ts), whose start-up made syncs of many small clips 13-20x slower; the
// numbers are meant to be ffprobe's, since the listing they are compared with was made by ffprobe.
//
// The first 12 bytes tell the format (ISO-BMFF/QuickTime box type at offset 4; the EBML magic of
// Matroska/WebM; "RIFF....AVI "), and one format reader (mp4.ts, matroska.ts, avi.ts) reads on;
// anything else is decided there, so the rest of a non-video file costs nothing. The readers
// share the byte accounting (byte-feed.ts): only small header boxes are ever buffered, media data
// is stepped over by counting, and no bytes, however damaged, make them throw.
//
// Written by hand because no library fits the stream: mediabunny reads no AVI and pulls by random
// access, mp4box.js reads only MP4, mediainfo.js is 2 MB of WASM that also seeks.
import { AviParser } from './avi';
import { ByteFeed, unreadable, WORDS, type FormatParser, type HeaderProbe } from './byte-feed';
import { MatroskaParser } from './matroska';
import { Mp4Parser } from './mp4';

export type { HeaderProbe } from './byte-feed';

export interface ContainerReader {
  /**
   * Feeds the file's next bytes, in order, from offset 0 (chunks of any size, 1 byte to several
   * MiB). `position`: the file offset of the chunk's first byte, for a reader that seeks to
   * wants() (by default, right after the previous chunk). Cheap when the reader is skipping (media
   * data): O(1) per chunk, no copy. Never throws.
   */
  push(chunk: Buffer, position?: number): void;
  /** True once the reader needs no more bytes (it has everything, or has given up): the caller may stop pushing. */
  readonly done: boolean;
  /** The file offset of the next byte the reader wants; null when done. Bytes before it may still be pushed (they are ignored). */
  wants(): number | null;
  /** The verdict, given the file's total size; call after the last push (or once done). Never throws. */
  finish(totalSize: number): HeaderProbe;
}

/** Enough to tell every format we read. */
const SNIFF_BYTES = 12;
/** Box types an ISO-BMFF/QuickTime file begins with (QuickTime files may open with any top-level box). */
const FIRST_BOXES = new Set(['ftyp', 'moov', 'mdat', 'free', 'wide', 'skip', 'pnot', 'styp', 'junk', 'uuid', 'sidx']);
const EBML_MAGIC = 0x1a45dfa3;
const NOT_A_CONTAINER = 'not a video container we can read';

type Format = 'mp4' | 'matroska' | 'avi';

/** The format the first bytes say, if any. */
function formatOf(head: Buffer): Format | null {
  if (head.length >= 4 && head.readUInt32BE(0) === EBML_MAGIC) return 'matroska';
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'AVI ') return 'avi';
  if (head.length >= 8) {
    const size = head.readUInt32BE(0);
    if ((size === 0 || size === 1 || size >= 8) && FIRST_BOXES.has(head.toString('latin1', 4, 8))) return 'mp4';
  }
  return null;
}

function parserFor(format: Format): FormatParser {
  return format === 'mp4' ? new Mp4Parser() : format === 'matroska' ? new MatroskaParser() : new AviParser();
}

class Reader implements ContainerReader {
  /** The first bytes, until they tell the format. */
  /** Only the bytes copied in are read (headBytes): from Node's pool, not zero-filled, one per file. */
  private readonly head = Buffer.allocUnsafe(SNIFF_BYTES);
  private headBytes = 0;
  private feed: ByteFeed | null = null;
  private rejected = false;
  /** The file offset just past the last chunk pushed (while sniffing; the feed keeps its own). */
  private end = 0;
  private result: HeaderProbe | null = null;

  get done(): boolean {
    return this.rejected || (this.feed?.done ?? false);
  }

  wants(): number | null {
    if (this.rejected) return null;
    return this.feed ? this.feed.wants() : this.headBytes;
  }

  push(chunk: Buffer, at?: number): void {
    if (this.feed) return this.feed.push(chunk, at);
    const position = at ?? this.end;
    if (!Number.isSafeInteger(position) || position < 0) return;
    this.end = position + chunk.length;
    if (this.rejected || position > this.headBytes || this.end <= this.headBytes) return;
    const from = this.headBytes - position;
    const n = Math.min(SNIFF_BYTES - this.headBytes, chunk.length - from);
    chunk.copy(this.head, this.headBytes, from, from + n);
    this.headBytes += n;
    if (this.headBytes < SNIFF_BYTES) return;
    this.startFeed(this.head)?.push(chunk, position);
  }

  finish(totalSize: number): HeaderProbe {
    this.result ??= this.verdict(totalSize);
    return this.result;
  }

  /** The format reader the first bytes call for, fed them; or the file is rejected. */
  private startFeed(head: Buffer): ByteFeed | null {
    const format = formatOf(head);
    this.rejected = format === null;
    if (format === null) return null;
    const feed = (this.feed = new ByteFeed(parserFor(format)));
    feed.push(head, 0);
    return feed;
  }

  private verdict(totalSize: number): HeaderProbe {
    // A file shorter than the sniff: its format reader, if it has one, says what is missing.
    const feed = this.feed ?? (!this.rejected && this.headBytes > 0 ? this.startFeed(this.head.subarray(0, this.headBytes)) : null);
    if (feed) return feed.verdict(totalSize);
    return unreadable(this.headBytes === 0 ? (totalSize === 0 ? 'the file is empty' : WORDS.truncated) : NOT_A_CONTAINER);
  }
}

export function createContainerReader(): ContainerReader {
  return new Reader();
}

/** A whole file in memory. */
export function probeBuffer(buf: Buffer): HeaderProbe {
  const reader = createContainerReader();
  reader.push(buf);
  return reader.finish(buf.length);
}

/** What probeFile needs of a file open for reading: a node:fs/promises FileHandle is one. */
export interface ReadableFile {
  stat(): Promise<{ size: number }>;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

/**
 * Opens a file: node:fs/promises' `open`, passed in because the engine does not import node:fs
 * (eslint.config.js, "destination seam": its files are the destination's business).
 */
export type OpenFile = (path: string, flags: 'r') => Promise<ReadableFile>;

/** Bytes read at each wanted offset: a header's worth, or the next few box headers. */
const FILE_READ_BYTES = 64 * 1024;

/**
 * A local file (the caller has checked the path), read at the offsets the reader wants, so media
 * data is sought past rather than read: a 1 GB mp4 whose moov is at its end costs two or three
 * reads. An I/O error rejects (it says nothing of the file's content); the content never does.
 */
export async function probeFile(path: string, open: OpenFile): Promise<HeaderProbe> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const reader = createContainerReader();
    const buf = Buffer.allocUnsafe(FILE_READ_BYTES);
    for (let at = reader.wants(); at !== null && at < size; at = reader.wants()) {
      const { bytesRead } = await file.read(buf, 0, Math.min(FILE_READ_BYTES, size - at), at);
      if (bytesRead <= 0) break;
      reader.push(buf.subarray(0, bytesRead), at);
    }
    return reader.finish(size);
  } finally {
    await file.close();
  }
}

// The byte accounting every container reader shares (container-reader.ts): a format reader asks for
// one run of bytes at a time ("the 8 bytes at offset N", "the 600 bytes of this stts box") and the
// feed gathers them from the chunks as they stream past, whatever their sizes. Bytes between two
// runs (media data, indexes, anything the reader does not need) are never looked at: a chunk that
// lies wholly before the next wanted byte costs one comparison and no copy, which is what lets the
// reader sit on the hash's stream of a multi-GB file. A run that arrives inside one chunk is handed
// over as a view of it (no copy); only a run split across chunks is copied, into a buffer of its
// exact size, and no run may be larger than MAX_RUN_BYTES, so memory stays bounded whatever the
// file claims.
import type { MediaProbe } from '../../../../src-shared/delivery-api';

export type HeaderProbe =
  | { kind: 'probed'; media: MediaProbe }
  /** Not a container we read, no video stream, truncated, corrupt: `detail` says which in plain words. */
  | { kind: 'unreadable'; detail: string };

/** The bytes [at, at + length) of the file. */
export interface Run {
  at: number;
  length: number;
}

/** A format reader as the feed drives it: asked runs in increasing file order, never back. */
export interface FormatParser {
  /** The first run it needs. */
  start(): Run;
  /** The run it asked for (a view, valid only during the call); the next run, or null when it needs nothing more. */
  take(bytes: Buffer, at: number): Run | null;
  /**
   * What it makes of what it saw, once the file ended or it asked for nothing more. `failure`: why
   * the feed stopped it early (a damaged or oversized header), for it to give when what it saw is
   * not enough.
   */
  verdict(totalSize: number, failure: string | null): HeaderProbe;
}

/** A header box or element bigger than this is not a header: the reader gives up rather than buffer it. */
export const MAX_RUN_BYTES = 16 * 1024 * 1024;

/** The words of the verdicts shared by the formats. */
export const WORDS = {
  truncated: 'the file ends inside its header',
  damaged: "the file's header is damaged",
  tooLarge: 'a header box of the file is too large to be a header',
  noVideo: 'no video track',
} as const;

export const unreadable = (detail: string): HeaderProbe => ({ kind: 'unreadable', detail });

/** Rounds as ffprobe's numbers are rounded for the listing (prober.ts parseProbe): 3 decimals. */
export const round3 = (n: number): number => (Number.isFinite(n) ? Math.round(n * 1000) / 1000 : 0);

export class ByteFeed {
  private run: Run | null;
  /** Bytes of `run` gathered so far (into `held` when it spans chunks). */
  private gathered = 0;
  private held: Buffer | null = null;
  /** The file offset just past the last chunk pushed (where a chunk pushed without a position starts). */
  private end = 0;
  /** Set when the parser threw or asked for something impossible (it is asked nothing more). */
  private failure: string | null = null;

  constructor(private readonly parser: FormatParser) {
    this.run = this.checked(parser.start(), 0);
  }

  get done(): boolean {
    return this.run === null;
  }

  /** The offset of the next byte wanted, or null when done. */
  wants(): number | null {
    return this.run === null ? null : this.run.at + this.gathered;
  }

  /**
   * The chunk whose first byte is at file offset `position` (by default, right after the previous
   * chunk). Bytes before the wanted one are ignored; a chunk that starts past it (a gap in the
   * stream, which no caller that follows wants() makes) is ignored too, so the reader keeps waiting,
   * and so is a chunk at a position that is not an offset.
   */
  push(chunk: Buffer, position: number = this.end): void {
    // A position that is not a file offset would make every offset after it meaningless.
    if (!Number.isSafeInteger(position) || position < 0) return;
    this.end = position + chunk.length;
    while (this.run !== null) {
      const want = this.run.at + this.gathered;
      // The O(1) case: the whole chunk is before the byte wanted (media data being skipped).
      if (this.end <= want || position > want) return;
      const from = want - position;
      const n = Math.min(this.run.length - this.gathered, chunk.length - from);
      let bytes: Buffer;
      if (this.gathered === 0 && n === this.run.length) bytes = chunk.subarray(from, from + n);
      else {
        this.held ??= Buffer.allocUnsafe(this.run.length);
        chunk.copy(this.held, this.gathered, from, from + n);
        this.gathered += n;
        if (this.gathered < this.run.length) return;
        bytes = this.held;
      }
      const done = this.run;
      this.held = null;
      this.gathered = 0;
      this.run = this.deliver(bytes, done);
    }
  }

  verdict(totalSize: number): HeaderProbe {
    try {
      return this.parser.verdict(totalSize, this.failure);
    } catch {
      return unreadable(WORDS.damaged);
    }
  }

  /** Ends the reading, for `detail`. */
  private fail(detail: string): null {
    this.failure = detail;
    return null;
  }

  private deliver(bytes: Buffer, done: Run): Run | null {
    let next: Run | null;
    try {
      next = this.parser.take(bytes, done.at);
    } catch {
      // A parser reads only inside the run it asked for; a throw is a bug or a run shorter than a field: the header is not one we can trust.
      return this.fail(WORDS.damaged);
    }
    return next === null ? null : this.checked(next, done.at + done.length);
  }

  /** A run the parser may ask for: forward only, of a sane size, at an offset a double holds exactly. */
  private checked(next: Run, notBefore: number): Run | null {
    if (!Number.isSafeInteger(next.at) || !Number.isSafeInteger(next.length) || next.at < notBefore || next.length <= 0) return this.fail(WORDS.damaged);
    if (next.length > MAX_RUN_BYTES) return this.fail(WORDS.tooLarge);
    if (!Number.isSafeInteger(next.at + next.length)) return this.fail(WORDS.damaged);
    return next;
  }
}

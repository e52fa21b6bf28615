// Reading a JSON answer within bounds (issues 12 and 15): the body is capped in size, refused
// when nested deeper than any answer of the two APIs before JSON.parse sees it, and aborted as
// stalled when it trickles in slower than MIN_BYTES_PER_SECOND over the stall window.

/**
 * The largest JSON answer read. A sets page of 200 sets with 10 slots and 4 participants each
 * (more than any collection of the reference service) is about 1 MiB (measured in
 * test/engine/client.test.ts); 8 MiB leaves room for longer texts without letting one answer
 * hold tens of MB (and JSON.parse several times that).
 */
export const MAX_JSON_BYTES = 8 * 1024 * 1024;

/** Nesting levels of objects and arrays allowed; the deepest answer of either API has about 6. */
export const MAX_JSON_DEPTH = 32;

/** A body slower than this over a whole stall window counts as stalled (issue 12: "slower than 1 KiB/s"). */
export const MIN_BYTES_PER_SECOND = 1024;

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the answer is larger than ${formatBytes(limit)}, the limit for a JSON answer`);
    this.name = 'BodyTooLargeError';
  }
}

export class BodyTooSlowError extends Error {
  constructor(readonly windowMs: number, readonly bytes: number) {
    super(`transfer stalled (${bytes} bytes in ${formatSeconds(windowMs)}, less than 1 KiB/s)`);
    this.name = 'BodyTooSlowError';
  }
}

export interface ReadLimits {
  /** Bytes read at most. */
  limit: number;
  /** Past the limit: fail with BodyTooLargeError, or keep the first `limit` bytes and stop reading. */
  overflow: 'fail' | 'truncate';
  /** The stall window: each window must bring MIN_BYTES_PER_SECOND per second, or the body is aborted. */
  windowMs: number;
}

/**
 * Gathers one answer's body as its chunks arrive from the dispatcher (http.ts hands it every
 * chunk of a dispatch handler: no Readable stream, async iterator or timer per request, which a
 * first sync's 20,000 consent answers paid for). Past the limit it fails (BodyTooLargeError) or,
 * with overflow 'truncate', keeps the first `limit` bytes and says the body is complete. The stall
 * rule is judged as each chunk arrives: a window that brought less than MIN_BYTES_PER_SECOND per
 * second fails the body (BodyTooSlowError); a body that goes silent is ended by the client's body
 * timeout, which has the same window (transfer/body-sinks.ts and part-sink.ts judge file bodies the same way).
 */
export class BodyCollector {
  private readonly chunks: Buffer[] = [];
  private total = 0;
  private windowStart = Date.now();
  private windowBytes = 0;
  private readonly minPerWindow: number;

  constructor(private readonly o: ReadLimits) {
    this.minPerWindow = Math.ceil((MIN_BYTES_PER_SECOND * o.windowMs) / 1000);
  }

  /** Takes a chunk: true while more is wanted, false once a truncated body holds `limit` bytes. Throws BodyTooLargeError or BodyTooSlowError. */
  add(chunk: Buffer): boolean {
    this.judgeWindow(chunk.length);
    if (this.total + chunk.length > this.o.limit) {
      if (this.o.overflow === 'fail') throw new BodyTooLargeError(this.o.limit);
      this.chunks.push(chunk.subarray(0, this.o.limit - this.total));
      this.total = this.o.limit;
      return false;
    }
    this.total += chunk.length;
    this.chunks.push(chunk);
    return true;
  }

  /** Everything kept, as one Buffer. */
  bytes(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.total);
  }

  private judgeWindow(n: number): void {
    this.windowBytes += n;
    const now = Date.now();
    if (now - this.windowStart < this.o.windowMs) return;
    if (this.windowBytes < this.minPerWindow) throw new BodyTooSlowError(this.o.windowMs, this.windowBytes);
    this.windowStart = now;
    this.windowBytes = 0;
  }
}

/**
 * True when the JSON text nests objects and arrays deeper than `maxDepth`. A linear scan that
 * skips string contents, so a deep answer is refused before JSON.parse builds it. A string's body
 * is skipped with indexOf to its closing quote rather than char by char: a page of sets is mostly
 * strings, and the char-by-char scan took about as long as JSON.parse itself (issue 21: a page of
 * 200 sets, 0.96 MB, 2.4-2.9 ms before, 1.3 ms now).
 */
export function nestedDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i = closingQuote(text, i);
      if (i < 0) return false; // an unterminated string: JSON.parse refuses the text
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/** Where the string opened at `open` ends: the next quote after an even run of backslashes (an odd run escapes it); -1 when none does. */
function closingQuote(text: string, open: number): number {
  let quote = open;
  for (;;) {
    quote = text.indexOf('"', quote + 1);
    if (quote < 0) return -1;
    let backslashes = 0;
    // Stops at the opening quote at the latest: each backslash is counted for one quote only.
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c /* \ */) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
}

function formatBytes(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

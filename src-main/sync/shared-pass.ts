// One read of the set records shared by the dataset files written at the end of a sync (issue 21:
// manifest.csv, SHA256SUMS, media.csv, participants.csv and croissant.json each used to read
// every record again, six passes over the state database; at 10,000 sets a pass cost 0.4-0.6 s,
// a third of the end of a first sync). The writers run at once, each pulling from its own
// reader; the source is read once, a record at a time, and a record is let go once every reader
// has taken it. A reader may run at most AHEAD records in front of the slowest one, so memory stays
// flat in the set count whatever the writers' speeds.
//
// Every reader must be taken (reader()) before the first is read, and every reader must be read to
// its end or closed (return()) for the others to go on past AHEAD: a writer that fails aborts the
// pass (abort()), so the others fail too instead of waiting for it.

/** How far the fastest reader may run ahead of the slowest: a few hundred records in memory at most. */
const AHEAD = 256;

interface Cursor {
  /** Index (in the source's order) of the next record this reader takes. */
  at: number;
  closed: boolean;
}

export class SharedPass<T> {
  private readonly cursors: Cursor[] = [];
  private iterator: AsyncIterator<T> | undefined;
  /** Records [base, base + held.length) of the source, not yet taken by every open reader. */
  private held: T[] = [];
  private base = 0;
  private ended = false;
  private failure: { error: unknown } | undefined;
  private pulling: Promise<void> | undefined;
  /** Readers waiting for the slowest one to take a record (the window of AHEAD is full). */
  private waiting: Array<() => void> = [];

  constructor(private readonly source: () => AsyncIterable<T> | Iterable<T>) {}

  /** A reader of every record, in the source's order. Take them all before reading any. */
  reader(): AsyncIterable<T> {
    if (this.iterator !== undefined) throw new Error('SharedPass: every reader must be taken before the first read');
    const cursor: Cursor = { at: 0, closed: false };
    this.cursors.push(cursor);
    return {
      [Symbol.asyncIterator]: () => ({
        next: () => this.next(cursor),
        return: () => {
          this.close(cursor);
          return Promise.resolve({ done: true, value: undefined });
        },
      }),
    };
  }

  private async next(cursor: Cursor): Promise<IteratorResult<T>> {
    if (cursor.closed) return { done: true, value: undefined };
    if (this.iterator === undefined) {
      const it = this.source();
      this.iterator = Symbol.asyncIterator in it ? it[Symbol.asyncIterator]() : toAsync(it[Symbol.iterator]());
    }
    for (;;) {
      if (this.failure) throw this.failure.error;
      const i = cursor.at - this.base;
      if (i < this.held.length) {
        const value = this.held[i]!;
        cursor.at++;
        this.letGo();
        return { done: false, value };
      }
      if (this.ended) return { done: true, value: undefined };
      if (this.held.length >= AHEAD) await new Promise<void>((resolve) => this.waiting.push(resolve));
      else await (this.pulling ??= this.pull());
    }
  }

  /**
   * Ends the pass for every reader with `error` (a writer failed: one that never started reading
   * would otherwise hold the others at AHEAD for ever).
   */
  abort(error: unknown): void {
    this.failure ??= { error };
    this.held = [];
    this.wake();
    void this.iterator?.return?.(undefined)?.catch(() => undefined);
  }

  private async pull(): Promise<void> {
    try {
      const r = await this.iterator!.next();
      if (r.done) this.ended = true;
      else this.held.push(r.value);
    } catch (error) {
      this.failure = { error };
      this.wake();
    } finally {
      this.pulling = undefined;
    }
  }

  /** Drops the records every open reader has taken, and wakes the readers held by the window. */
  private letGo(): void {
    let slowest = Infinity;
    for (const c of this.cursors) if (!c.closed && c.at < slowest) slowest = c.at;
    if (slowest === Infinity) slowest = this.base + this.held.length;
    const drop = slowest - this.base;
    // Dropped a batch at a time (each drop copies what is held), or whenever the window is full.
    if (drop <= 0 || (drop < AHEAD / 4 && this.held.length < AHEAD)) return;
    this.held = drop >= this.held.length ? [] : this.held.slice(drop);
    this.base = slowest;
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }

  private close(cursor: Cursor): void {
    if (cursor.closed) return;
    cursor.closed = true;
    if (this.cursors.every((c) => c.closed)) {
      this.held = [];
      void this.iterator?.return?.(undefined)?.catch(() => undefined);
    }
    this.letGo();
  }
}

async function* toAsyncGen<T>(it: Iterator<T>): AsyncGenerator<T> {
  for (let r = it.next(); !r.done; r = it.next()) yield r.value;
}

function toAsync<T>(it: Iterator<T>): AsyncIterator<T> {
  return toAsyncGen(it);
}

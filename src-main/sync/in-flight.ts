// Destination calls a set starts without waiting for them: its set.json (the set's files wait for
// it, the walk does not) and the removal of a file the set renamed. A set with no file to fetch
// ends when its set.json is written, which may be after the transfer pools are idle; the run waits
// for them all before it writes the dataset index, so that the index, the state and the summary
// see every set's outcome, and no removal is cut off by the end of the process.

export class InFlight {
  private readonly running = new Set<Promise<unknown>>();

  /** Counts `p` as running until it settles; returns it. */
  track<T>(p: Promise<T>): Promise<T> {
    this.running.add(p);
    const settled = (): void => {
      this.running.delete(p);
    };
    p.then(settled, settled);
    return p;
  }

  /** Resolves once every call tracked so far, and any tracked while waiting, has settled (never rejects). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}

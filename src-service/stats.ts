// Request counters for tests and benchmarks (e.g. "a no-op sync downloads nothing").

export interface StatsSnapshot {
  requests: number;
  byRoute: Record<string, number>;
  fileRequests: number;
  fileBytesSent: number;
}

export class Stats {
  private snapshot: StatsSnapshot = emptyStats();

  countRequest(route: string, isFile: boolean): void {
    this.snapshot.requests++;
    this.snapshot.byRoute[route] = (this.snapshot.byRoute[route] ?? 0) + 1;
    if (isFile) this.snapshot.fileRequests++;
  }

  /** Body bytes of file responses handed to the socket. */
  countFileBytes(bytes: number): void {
    this.snapshot.fileBytesSent += bytes;
  }

  read(): StatsSnapshot {
    return { ...this.snapshot, byRoute: { ...this.snapshot.byRoute } };
  }

  reset(): void {
    this.snapshot = emptyStats();
  }
}

function emptyStats(): StatsSnapshot {
  return { requests: 0, byRoute: {}, fileRequests: 0, fileBytesSent: 0 };
}

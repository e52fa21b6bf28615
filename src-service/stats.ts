// Request counters for tests and benchmarks (e.g. "a no-op sync downloads nothing"), and the
// order in which requests started and ended (e.g. "page 2 was asked for while a file was still
// in flight"): ordering, never timing, so tests built on it hold on a loaded machine.

export interface TimelineEvent {
  /** `start` when the request reached the handler, `end` when its response finished or was cut. */
  event: 'start' | 'end';
  /** The route label as in byRoute, e.g. "GET /files/:id". */
  route: string;
  /** The request's own path below the API base (query string kept, e.g. "/collections/1/sets?page=2"). */
  path: string;
  /** Request number (per reset), pairing a start with its end. */
  id: number;
}

export interface StatsSnapshot {
  requests: number;
  byRoute: Record<string, number>;
  fileRequests: number;
  fileBytesSent: number;
  /** TCP connections accepted. */
  connections: number;
  /** Requests by HTTP version ("1.1", "2.0"). */
  byHttpVersion: Record<string, number>;
  /** Requests dropped because they came on a connection past its idle timeout (ServiceOptions.lazyIdleClose). */
  idleDrops: number;
  /** API requests in order, at most TIMELINE_LIMIT events (then no more are kept). */
  timeline: TimelineEvent[];
}

const TIMELINE_LIMIT = 50_000;

export class Stats {
  private snapshot: StatsSnapshot = emptyStats();
  private nextId = 1;

  /** Counts a request; returns the callback that records its end in the timeline. */
  countRequest(route: string, isFile: boolean, detail: { path?: string; httpVersion?: string } = {}): () => void {
    const s = this.snapshot;
    s.requests++;
    s.byRoute[route] = (s.byRoute[route] ?? 0) + 1;
    if (isFile) s.fileRequests++;
    if (detail.httpVersion) s.byHttpVersion[detail.httpVersion] = (s.byHttpVersion[detail.httpVersion] ?? 0) + 1;
    const id = this.nextId++;
    const path = detail.path ?? '';
    this.record(s, { event: 'start', route, path, id });
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.record(s, { event: 'end', route, path, id });
    };
  }

  private record(s: StatsSnapshot, e: TimelineEvent): void {
    // A reset in between: the old request's end belongs to the old snapshot.
    if (s === this.snapshot && s.timeline.length < TIMELINE_LIMIT) s.timeline.push(e);
  }

  countConnection(): void {
    this.snapshot.connections++;
  }

  countIdleDrop(): void {
    this.snapshot.idleDrops++;
  }

  /** Body bytes of file responses handed to the socket. */
  countFileBytes(bytes: number): void {
    this.snapshot.fileBytesSent += bytes;
  }

  read(): StatsSnapshot {
    const s = this.snapshot;
    return { ...s, byRoute: { ...s.byRoute }, byHttpVersion: { ...s.byHttpVersion }, timeline: [...s.timeline] };
  }

  reset(): void {
    this.snapshot = emptyStats();
    this.nextId = 1;
  }
}

function emptyStats(): StatsSnapshot {
  return { requests: 0, byRoute: {}, fileRequests: 0, fileBytesSent: 0, connections: 0, byHttpVersion: {}, idleDrops: 0, timeline: [] };
}

// A WAN link between the bench's clients and the reference service, emulated by a TCP proxy on
// loopback (this kernel has no netem). Per connection it delays and paces the byte stream the
// way a long path with Linux TCP senders would; the model (see bench/NOTES.md, "WAN link"):
//
// - handshake: a connection carries data only one RTT after it was opened (SYN, SYN/ACK);
// - propagation: every byte reaches the other side RTT/2 after it leaves the bottleneck;
// - bottleneck: one rate per direction shared by all connections, FIFO, with a buffer of one
//   bandwidth-delay product; a sender whose bytes would overflow it waits (no losses: senders
//   are assumed to pace perfectly, which flatters every tool alike);
// - congestion window: per connection and direction, starts at 10 segments, grows by the bytes
//   acknowledged (doubling per RTT: slow start) up to what the link can hold (2 BDP), and falls
//   back to 10 segments when the sender was idle for an RTO (RTT + 200 ms, Linux's minimum RTO
//   plus the round trip), as Linux does with tcp_slow_start_after_idle=1;
// - acknowledgements return RTT/2 after delivery and are never delayed by the reverse bottleneck.
//
// Time is the process's monotonic clock; timers fire with ~1 ms granularity, small against
// the 20 and 80 ms round trips the bench uses.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface LinkSpec {
  rttMs: number;
  /** Bottleneck rate of each direction, in Mbit/s (10^6 bit/s). */
  rateMbit: number;
  /** Maximum segment size, bytes; default 1448 (1500 MTU with TCP timestamps). */
  mss?: number;
  /** Initial (and restart) congestion window in segments; default 10 (Linux). */
  initialSegments?: number;
}

export interface LinkStats {
  connections: number;
  bytesToServer: number;
  bytesToClient: number;
  /** Times a connection's window fell back to the initial window after being idle. */
  idleRestarts: number;
}

export interface Link {
  /** http://127.0.0.1:<port>, the origin clients use; the link forwards to 127.0.0.1:targetPort. */
  origin: string;
  port: number;
  /** Port of the real server; set before the first connection arrives. */
  targetPort: number | undefined;
  stats(): LinkStats;
  close(): Promise<void>;
}

const MIN_RTO_MS = 200;
/** Bytes handed to the bottleneck at once: large enough to keep timer counts low at 1 Gbit/s. */
const CHUNK = 64 * 1024;
/** Bytes read from a source socket ahead of the window before it is paused. */
const READ_AHEAD = 1024 * 1024;
/** Bytes queued for a slow receiver before the sender waits (stands in for the receive window). */
const RECEIVE_BUFFER = 8 * 1024 * 1024;

const now = (): number => performance.now();

/** One direction's shared bottleneck: a FIFO served at `bytesPerMs` with a buffer of `capacity` bytes. */
class Bottleneck {
  private busyUntil = 0;
  private readonly waiting = new Set<Flow>();
  private wakeTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly bytesPerMs: number,
    readonly capacity: number,
  ) {}

  /** Bytes queued and not yet sent on at time t. */
  private backlog(t: number): number {
    return Math.max(0, this.busyUntil - t) * this.bytesPerMs;
  }

  /** Departure time of `bytes` entering now, or undefined (and the flow is woken later) when the buffer is full. */
  admit(flow: Flow, bytes: number): number | undefined {
    const t = now();
    const backlog = this.backlog(t);
    if (backlog > 0 && backlog + bytes > this.capacity) {
      this.waiting.add(flow);
      this.scheduleWake(t, bytes);
      return undefined;
    }
    this.busyUntil = Math.max(t, this.busyUntil) + bytes / this.bytesPerMs;
    return this.busyUntil;
  }

  forget(flow: Flow): void {
    this.waiting.delete(flow);
  }

  private scheduleWake(t: number, bytes: number): void {
    if (this.wakeTimer) return;
    // When the backlog has drained enough for `bytes` to fit.
    const at = this.busyUntil - (this.capacity - bytes) / this.bytesPerMs;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      const flows = [...this.waiting];
      this.waiting.clear();
      // Round robin: the flows retry in the order they started waiting.
      for (const f of flows) f.pump();
    }, Math.max(1, at - t));
  }

  close(): void {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.waiting.clear();
  }
}

/** One direction of one connection: reads from `source`, delivers to `sink` through the link. */
class Flow {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private inFlight = 0;
  private cwnd: number;
  private lastActive: number;
  private sourceEnded = false;
  private sinkEnded = false;
  /** Deliveries in departure order (null: the FIN); one timer drains what is due. */
  private deliveries: Array<{ at: number; data: Buffer | null }> = [];
  private deliveryTimer: NodeJS.Timeout | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  private handshakeTimer = false;

  constructor(
    private readonly source: Socket,
    private readonly sink: Socket,
    private readonly bottleneck: Bottleneck,
    private readonly m: { oneWayMs: number; rtoMs: number; initialWindow: number; maxWindow: number; readyAt: number },
    private readonly count: (bytes: number) => void,
    private readonly onIdleRestart: () => void,
  ) {
    this.cwnd = m.initialWindow;
    this.lastActive = m.readyAt;
    source.on('data', (chunk: Buffer) => {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.pendingBytes >= READ_AHEAD) source.pause();
      this.pump();
    });
    source.on('end', () => {
      this.sourceEnded = true;
      this.pump();
    });
    sink.on('drain', () => this.pump());
  }

  pump(): void {
    if (this.closed) return;
    const t = now();
    // The handshake: nothing moves before the connection is established. (Timers may fire a
    // little early against performance.now(), hence a check and a re-arm, not a single timer.)
    if (t < this.m.readyAt) {
      if (!this.handshakeTimer) {
        this.handshakeTimer = true;
        this.later(() => {
          this.handshakeTimer = false;
          this.pump();
        }, this.m.readyAt - t + 1);
      }
      return;
    }
    if (this.inFlight === 0 && this.pendingBytes > 0 && t - this.lastActive > this.m.rtoMs && this.cwnd > this.m.initialWindow) {
      this.cwnd = this.m.initialWindow;
      this.onIdleRestart();
    }
    while (this.pendingBytes > 0 && this.sink.writableLength < RECEIVE_BUFFER) {
      const bytes = Math.min(this.pendingBytes, this.cwnd - this.inFlight, CHUNK);
      if (bytes <= 0) return; // window full: an acknowledgement will pump again
      const departure = this.bottleneck.admit(this, bytes);
      if (departure === undefined) return; // buffer full: the bottleneck wakes us
      const data = this.take(bytes);
      this.inFlight += bytes;
      this.lastActive = t;
      this.deliver(departure + this.m.oneWayMs, data);
      this.later(() => this.acknowledge(bytes), departure + 2 * this.m.oneWayMs - t);
    }
    if (this.pendingBytes < READ_AHEAD) this.source.resume();
    if (this.sourceEnded && this.pendingBytes === 0 && !this.sinkEnded) {
      this.sinkEnded = true;
      // The FIN travels behind the last byte.
      this.deliver(Math.max(this.deliveries.at(-1)?.at ?? 0, t + this.m.oneWayMs), null);
    }
  }

  private acknowledge(bytes: number): void {
    this.inFlight -= bytes;
    this.lastActive = now();
    // Slow start: every acknowledged byte opens the window by one byte (doubling per RTT).
    this.cwnd = Math.min(this.m.maxWindow, this.cwnd + bytes);
    this.pump();
  }

  private take(bytes: number): Buffer {
    const parts: Buffer[] = [];
    let need = bytes;
    while (need > 0) {
      const head = this.pending[0]!;
      if (head.length <= need) {
        parts.push(head);
        this.pending.shift();
        need -= head.length;
      } else {
        parts.push(head.subarray(0, need));
        this.pending[0] = head.subarray(need);
        need = 0;
      }
    }
    this.pendingBytes -= bytes;
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  private deliver(at: number, data: Buffer | null): void {
    this.deliveries.push({ at, data });
    if (!this.deliveryTimer) this.armDelivery();
  }

  private armDelivery(): void {
    const head = this.deliveries[0];
    if (!head || this.closed) return;
    this.deliveryTimer = setTimeout(() => {
      this.deliveryTimer = undefined;
      const t = now();
      while (this.deliveries.length > 0 && this.deliveries[0]!.at <= t + 0.5) {
        const { data } = this.deliveries.shift()!;
        if (this.sink.destroyed) continue;
        if (data === null) {
          this.sink.end();
          continue;
        }
        this.count(data.length);
        this.sink.write(data);
      }
      this.armDelivery();
    }, Math.max(0, head.at - now()));
  }

  private later(fn: () => void, ms: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.closed) fn();
    }, Math.max(0, ms));
    this.timers.add(timer);
  }

  close(): void {
    this.closed = true;
    this.bottleneck.forget(this);
    for (const timer of this.timers) clearTimeout(timer);
    if (this.deliveryTimer) clearTimeout(this.deliveryTimer);
  }
}

export async function startLink(spec: LinkSpec): Promise<Link> {
  const mss = spec.mss ?? 1448;
  const oneWayMs = spec.rttMs / 2;
  const bytesPerMs = (spec.rateMbit * 1e6) / 8 / 1000;
  const bdp = bytesPerMs * spec.rttMs;
  const initialWindow = (spec.initialSegments ?? 10) * mss;
  const model = { oneWayMs, rtoMs: spec.rttMs + MIN_RTO_MS, initialWindow, maxWindow: Math.max(initialWindow, 2 * bdp) };
  // The buffer holds one BDP, but never less than one chunk so a lone sender can always move.
  const down = new Bottleneck(bytesPerMs, Math.max(bdp, CHUNK));
  const up = new Bottleneck(bytesPerMs, Math.max(bdp, CHUNK));
  const stats: LinkStats = { connections: 0, bytesToServer: 0, bytesToClient: 0, idleRestarts: 0 };
  const sockets = new Set<Socket>();
  const flows = new Set<Flow>();

  const link: Link = {
    origin: '',
    port: 0,
    targetPort: undefined,
    stats: () => ({ ...stats }),
    close: async () => {
      for (const f of flows) f.close();
      for (const s of sockets) s.destroy();
      down.close();
      up.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  // Half-open sockets: a FIN is forwarded (late, behind the data) instead of closing both sides at once.
  const server: Server = createServer({ noDelay: true, allowHalfOpen: true }, (client) => {
    if (link.targetPort === undefined) {
      client.destroy();
      return;
    }
    stats.connections++;
    const readyAt = now() + spec.rttMs;
    const upstream = connect({ host: '127.0.0.1', port: link.targetPort, noDelay: true, allowHalfOpen: true });
    const pair = [client, upstream];
    for (const s of pair) sockets.add(s);
    const m = { ...model, readyAt };
    const toServer = new Flow(client, upstream, up, m, (n) => (stats.bytesToServer += n), () => stats.idleRestarts++);
    const toClient = new Flow(upstream, client, down, m, (n) => (stats.bytesToClient += n), () => stats.idleRestarts++);
    flows.add(toServer).add(toClient);
    let done = false;
    const teardown = () => {
      if (done) return;
      done = true;
      toServer.close();
      toClient.close();
      flows.delete(toServer);
      flows.delete(toClient);
      for (const s of pair) {
        s.destroy();
        sockets.delete(s);
      }
    };
    // An error of either side ends both at once (a reset is not delayed: an honest
    // simplification, resets are not what the bench measures); otherwise the connection is
    // gone when both sides have closed.
    for (const s of pair) {
      s.on('error', teardown);
      s.on('close', () => {
        if (pair.every((x) => x.closed)) teardown();
      });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('link: no TCP address');
  link.port = address.port;
  link.origin = `http://127.0.0.1:${address.port}`;
  return link;
}

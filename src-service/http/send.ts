// Puts a ResponsePlan on the wire. Without a fault, files are piped straight from disk with
// 1 MiB reads and no per-chunk work besides a byte counter. Stream faults cut, stall, end
// early, trickle or corrupt the body at exact byte positions so clients can be tested against them.

import * as fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants as http2constants, type ServerHttp2Stream } from 'node:http2';
import type { StreamFault } from '../faults';
import { bodyLength, type BodySource, type ResponsePlan } from './plan';

const READ_CHUNK = 1024 * 1024;

export interface SendHooks {
  /** Called with the number of body bytes handed to the socket (file bodies only are counted by callers). */
  onBodyBytes?: (bytes: number) => void;
  /** Registers a timer the service must cancel when it closes (stalls, trickles); returns its release. */
  trackTimer?: (timer: NodeJS.Timeout) => () => void;
}

export async function sendPlan(req: IncomingMessage, res: ServerResponse, plan: ResponsePlan, fault: StreamFault | undefined, hooks: SendHooks = {}): Promise<void> {
  const length = bodyLength(plan.body);
  const headers: Record<string, string | number> = { ...plan.headers };
  if (fault?.type === 'truncate') delete headers['content-length'];
  else headers['content-length'] = length;
  if (plan.reason === undefined) res.writeHead(plan.status, headers);
  else res.writeHead(plan.status, plan.reason, headers);
  // Headers must be on the wire before a reset, stall or trickle that may come before any body byte.
  if (fault?.type === 'reset' || fault?.type === 'stall' || fault?.type === 'trickle') res.flushHeaders();

  if (req.method === 'HEAD' || length === 0) {
    if (fault?.type === 'reset' || (fault?.type === 'stall' && fault.ms === undefined)) return dropConnection(res);
    res.end();
    return;
  }

  switch (fault?.type) {
    case undefined:
      return writePart(res, plan.body, 0, length, true, hooks);
    case 'flip':
      return writePart(res, plan.body, 0, length, true, hooks, fault.atByte);
    case 'truncate':
      return writePart(res, plan.body, 0, Math.min(fault.afterBytes, length), true, hooks);
    case 'reset': {
      await writePart(res, plan.body, 0, Math.min(fault.afterBytes, length), false, hooks);
      return dropConnection(res);
    }
    case 'stall': {
      const sent = Math.min(fault.afterBytes, length);
      await writePart(res, plan.body, 0, sent, false, hooks);
      // Without ms the stall lasts until the client gives up or the service closes.
      if (fault.ms === undefined) return;
      await pause(fault.ms, res, hooks);
      if (res.destroyed) return;
      return writePart(res, plan.body, sent, length, true, hooks);
    }
    case 'trickle': {
      for (let sent = 0; sent < length; sent += fault.bytes) {
        if (sent > 0) await pause(fault.everyMs, res, hooks);
        if (res.destroyed) return;
        const to = Math.min(sent + fault.bytes, length);
        await writePart(res, plan.body, sent, to, to === length, hooks);
      }
      return;
    }
  }
}

/**
 * Writes body bytes [from, to) (offsets within the body), resolving once they are handed to
 * the socket. `flipAt` is an absolute file offset (for buffers: counted from their `offset`, else the body start) whose byte is
 * inverted on the way out.
 */
function writePart(res: ServerResponse, body: BodySource, from: number, to: number, end: boolean, hooks: SendHooks, flipAt?: number): Promise<void> {
  if (to <= from) {
    if (end) res.end();
    return Promise.resolve();
  }
  if (body.kind === 'buffer') {
    let data = body.data.subarray(from, to);
    const flipInData = flipAt === undefined ? undefined : flipAt - (body.offset ?? 0);
    if (flipInData !== undefined && flipInData >= from && flipInData < to) {
      data = Buffer.from(data);
      data[flipInData - from] = (data[flipInData - from] ?? 0) ^ 0xff;
    }
    hooks.onBodyBytes?.(data.length);
    return untilDoneOrClosed(res, (resolve) => {
      if (end) res.end(data, () => resolve());
      else res.write(data, () => resolve());
    });
  }

  const fileStart = body.start + from;
  const fileEnd = body.start + to - 1;
  return untilDoneOrClosed(res, (resolve, onClose) => {
    const stream = fs.createReadStream(body.path, { start: fileStart, end: fileEnd, highWaterMark: READ_CHUNK });
    let position = fileStart;
    const flipping = flipAt !== undefined && flipAt >= fileStart && flipAt <= fileEnd;
    stream.on('data', (chunk) => {
      const buffer = chunk as Buffer;
      hooks.onBodyBytes?.(buffer.length);
      if (flipping && flipAt >= position && flipAt < position + buffer.length) {
        // Safe to change in place: fs streams hand out a fresh buffer per read.
        buffer[flipAt - position] = (buffer[flipAt - position] ?? 0) ^ 0xff;
      }
      position += buffer.length;
    });
    stream.on('error', () => {
      res.destroy();
      resolve();
    });
    onClose(() => stream.destroy());
    if (end) {
      stream.pipe(res);
      stream.on('end', () => resolve());
    } else {
      stream.pipe(res, { end: false });
      // Resolve only when the last bytes were accepted by the socket, so a following reset
      // or stall begins after exactly the promised number of bytes.
      stream.on('end', () => res.write(Buffer.alloc(0), () => resolve()));
    }
  });
}

/**
 * A promise settled by `start`'s resolve or by the response closing, whichever comes first.
 * The close listener is removed afterwards, so a trickle's many parts do not pile up listeners.
 */
function untilDoneOrClosed(res: ServerResponse, start: (resolve: () => void, onClose: (cleanup: () => void) => void) => void): Promise<void> {
  return new Promise((resolve) => {
    let cleanup: (() => void) | undefined;
    const settle = (): void => {
      res.off('close', closed);
      resolve();
    };
    const closed = (): void => {
      cleanup?.();
      settle();
    };
    res.once('close', closed);
    start(settle, (fn) => (cleanup = fn));
  });
}

/**
 * Ends the connection mid-body: everything written so far still reaches the client (FIN after
 * the flushed bytes), then the socket is destroyed. A hard RST could discard bytes still in
 * the kernel's send buffer and make "exactly afterBytes" untrue.
 */
function dropConnection(res: ServerResponse): void {
  // Over HTTP/2 (the HTTPS mode) a reset is of this stream only, as when a CDN loses its upstream.
  const h2stream = (res as ServerResponse & { stream?: ServerHttp2Stream }).stream;
  if (h2stream) return void h2stream.close(http2constants.NGHTTP2_INTERNAL_ERROR);
  const socket = res.socket;
  if (!socket || socket.destroyed) return;
  socket.end(() => socket.destroy());
}

function pause(ms: number, res: ServerResponse, hooks: SendHooks): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      release?.();
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const release = hooks.trackTimer?.(timer);
    res.once('close', done);
  });
}

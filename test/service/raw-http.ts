// A bare HTTP/1.1 client on node:net: sends the request bytes exactly as given (odd paths,
// forged Host, broken headers that fetch and undici would refuse or normalise) and reads the
// answer's status line and headers.

import * as net from 'node:net';

export interface RawReply {
  /** 0 when the connection closed without a status line. */
  status: number;
  reason: string;
  headers: Record<string, string>;
  body: string;
}

/** Sends `request` (a whole HTTP/1.x message) on a fresh connection and reads until the server closes it. */
export function rawRequest(port: number, request: string | Buffer, timeoutMs = 10_000): Promise<RawReply> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseReply(Buffer.concat(chunks)));
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', finish);
    socket.on('close', finish);
    socket.write(request);
  });
}

function parseReply(raw: Buffer): RawReply {
  const text = raw.toString('latin1');
  const headEnd = text.indexOf('\r\n\r\n');
  const head = headEnd < 0 ? text : text.slice(0, headEnd);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(statusLine);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: m ? Number(m[1]) : 0, reason: m?.[2] ?? '', headers, body: headEnd < 0 ? '' : text.slice(headEnd + 4) };
}

/** A request message with `Connection: close`; `headers` go out in order, verbatim. */
export function message(method: string, target: string, headers: Array<[string, string]>, body = ''): string {
  const lines = [`${method} ${target} HTTP/1.1`, ...headers.map(([k, v]) => `${k}: ${v}`), 'Connection: close'];
  if (body !== '' || method === 'POST' || method === 'PUT' || method === 'PATCH') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

// The HTTPS mode of the reference service: node:http2's secure server, offering h2 and
// http/1.1 by ALPN (allowHTTP1), so one port serves HTTP/2 clients and HTTP/1.1 clients
// (aria2c, curl --http1.1, undici without allowH2) alike. Requests reach the same handler
// as in plain mode: node's HTTP/2 compatibility API gives it request and response objects
// with the members the service uses (method, url, headers, socket.remoteAddress, writeHead,
// write, end, pipe, destroy, 'close').

import type { IncomingMessage, ServerResponse } from 'node:http';
import * as http2 from 'node:http2';
import { Agent, fetch as undiciFetch } from 'undici';

/** What the service needs to serve HTTPS: PEM key and certificate, and the CA that signed it. */
export interface TlsIdentity {
  key: string;
  cert: string;
  /** PEM of the CA a client must trust; used by the service's own admin client. */
  ca: string;
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export function createSecureService(identity: TlsIdentity, handler: RequestHandler): http2.Http2SecureServer {
  const server = http2.createSecureServer({ key: identity.key, cert: identity.cert, allowHTTP1: true }, (req, res) => {
    // An h2 stream of the compatibility API stands in for IncomingMessage/ServerResponse.
    if (req.httpVersionMajor === 2) {
      addFlushHeaders(res);
      // HTTP/2 names the host in :authority; the service's Host checks read `host`.
      req.headers.host ??= req.authority;
    }
    handler(req as unknown as IncomingMessage, res as unknown as ServerResponse);
  });
  return server;
}

/**
 * ServerResponse.flushHeaders (used before stream faults) has no twin in the HTTP/2
 * compatibility API; sending the HEADERS frame right away is what it means there.
 */
function addFlushHeaders(res: http2.Http2ServerResponse): void {
  const target = res as http2.Http2ServerResponse & { flushHeaders?: () => void };
  target.flushHeaders ??= () => {
    if (!res.stream.headersSent && !res.stream.destroyed) {
      res.stream.respond({ ':status': res.statusCode, ...res.getHeaders() } as http2.OutgoingHttpHeaders);
    }
  };
}

/** A fetch that trusts exactly the given CA, for the admin client of an HTTPS service. */
export function fetchTrusting(ca: string): typeof fetch {
  const dispatcher = new Agent({ connect: { ca } });
  const trusting = (input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) => undiciFetch(input, { ...init, dispatcher });
  return trusting as unknown as typeof fetch;
}

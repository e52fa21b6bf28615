// A loopback port nothing listens on (bound, read, released), for "service unreachable" tests.
import { createServer } from 'node:net';

export async function closedLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port was assigned');
  return address.port;
}

// The bench's WAN link emulator (bench/lib/link.ts) forwards bytes intact and in order, both
// ways and over many connections at once, passes a half-close on, and restarts an idle
// connection's window, and can stand in front of the reference service. (Its timing is measured by the bench, not asserted here.)
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLink, type Link } from '../../bench/lib/link';
import { startReferenceService } from '../../src-service/index';
import { closedLoopbackPort } from '../support/closed-port';

let echo: Server;
let link: Link;
beforeAll(async () => {
  // Answers each connection with the sha256 of everything it received, then its own 1 MiB.
  echo = createServer({ allowHalfOpen: true }, (socket) => {
    const hash = createHash('sha256');
    socket.on('data', (d: Buffer) => hash.update(d));
    socket.on('end', () => {
      socket.write(hash.digest());
      socket.end(Buffer.alloc(1024 * 1024, 0x5a));
    });
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', () => resolve()));
  link = await startLink({ rttMs: 10, rateMbit: 400 });
  link.targetPort = (echo.address() as { port: number }).port;
});
afterAll(async () => {
  await link?.close();
  await new Promise((resolve) => echo?.close(resolve));
});

function exchange(payload: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ port: link.port, host: '127.0.0.1', allowHalfOpen: true });
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
    // Written in uneven pieces, then half-closed: the server answers only after our FIN.
    for (let at = 0; at < payload.length; at += 70_001) socket.write(payload.subarray(at, at + 70_001));
    socket.end();
  });
}

it('carries bytes intact both ways over parallel connections and forwards the half-close', async () => {
  const payloads = Array.from({ length: 6 }, (_, i) => randomBytes(300_000 + i * 12_345));
  const before = link.stats();
  const answers = await Promise.all(payloads.map(exchange));
  for (const [i, answer] of answers.entries()) {
    expect(answer.subarray(0, 32).equals(createHash('sha256').update(payloads[i]!).digest())).toBe(true);
    expect(answer.length).toBe(32 + 1024 * 1024);
    expect(answer.subarray(32).every((b) => b === 0x5a)).toBe(true);
  }
  const after = link.stats();
  expect(after.connections - before.connections).toBe(6);
  expect(after.bytesToServer - before.bytesToServer).toBe(payloads.reduce((a, p) => a + p.length, 0));
  expect(after.bytesToClient - before.bytesToClient).toBe(6 * (32 + 1024 * 1024));
});

it('falls back to the initial window when a connection was idle for longer than an RTO', async () => {
  const socket = connect({ port: link.port, host: '127.0.0.1' });
  const before = link.stats().idleRestarts;
  const received = (n: number) =>
    new Promise<void>((resolve) => {
      let got = 0;
      const onData = (d: Buffer) => {
        got += d.length;
        if (got >= n) {
          socket.off('data', onData);
          resolve();
        }
      };
      socket.on('data', onData);
    });
  // The echo server answers only at the end, so use the client->server direction: send, wait
  // until the link delivered it (the server cannot tell us; wait for the stats), idle, send again.
  const sent = link.stats().bytesToServer;
  socket.write(randomBytes(200_000));
  while (link.stats().bytesToServer < sent + 200_000) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 10 + 200 + 150)); // RTT + minimum RTO, and a margin
  socket.end(randomBytes(50_000));
  await received(32);
  expect(link.stats().idleRestarts - before).toBe(1);
  socket.destroy();
});

it('puts the reference service behind the link: its URLs name the link, and files arrive intact through it', async () => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-link-svc-'));
  const front = await startLink({ rttMs: 4, rateMbit: 800 });
  try {
    front.targetPort = await closedLoopbackPort();
    const svc = await startReferenceService({ dataDir: root, sets: 2, fileSize: 200_000, slots: 2, port: front.targetPort, publicOrigin: front.origin });
    try {
      expect(svc.deliveryBaseUrl).toBe(`${front.origin}/api/v1/partner`);
      const auth = { authorization: `Bearer ${svc.clients[0]!.apiKey}` };
      const page = await request(`${svc.deliveryBaseUrl}/collections/${svc.clients[0]!.collections[0]}/sets`, { headers: auth });
      const { sets } = (await page.body.json()) as { sets: Array<{ files: Array<{ url: string; sha256: string }> }> };
      const file = sets[0]!.files[0]!;
      expect(file.url.startsWith(`${front.origin}/`)).toBe(true);
      const body = Buffer.from(await (await request(file.url, { headers: auth })).body.arrayBuffer());
      expect(createHash('sha256').update(body).digest('hex')).toBe(file.sha256);
      expect(front.stats().connections).toBeGreaterThanOrEqual(2);
    } finally {
      await svc.close();
    }
  } finally {
    await front.close();
    await fs.rm(root, { recursive: true, force: true });
  }
});

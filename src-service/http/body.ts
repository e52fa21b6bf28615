// Reads a small JSON request body (admin interface only).

import type { IncomingMessage } from 'node:http';

const LIMIT = 1024 * 1024;

export async function readJsonBody(req: IncomingMessage): Promise<{ ok: true; value: unknown } | { ok: false; message: string }> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    if (total > LIMIT) return { ok: false, message: `request body larger than ${LIMIT} bytes` };
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, message: 'request body is not valid JSON' };
  }
}

// Every fault switch of the admin interface, observed on the wire with node:http so exact
// byte counts, missing Content-Length and dropped connections are visible.

import * as http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseFaultRequest, type Fault } from '../../src-service/faults';
import { echoErrorPlan } from '../../src-service/http/echo-auth';
import { expectJsonError, getBytes, getJson, sha256, startTestService, walkSets, type ApiFile, type ApiSetsPage, type TestService } from './support';

let svc: TestService;
let file: ApiFile;

beforeAll(async () => {
  svc = await startTestService({ sets: 3 });
  file = (await walkSets(svc.deliveryBaseUrl, svc.mainKey, svc.mainCollection))[0]?.files[0] as ApiFile;
});
afterEach(async () => {
  await svc.admin.clearFaults();
});
afterAll(async () => {
  await svc.stop();
});

interface RawAnswer {
  status: number;
  statusMessage: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** True when the body ended cleanly (not cut by a dropped connection or our own give-up). */
  complete: boolean;
  error?: Error;
}

/**
 * One request on a fresh connection; `giveUpAfterMs` aborts a stalled transfer (the client's
 * watchdog), counted from the answer's headers or, with `afterBytes`, from that many body bytes.
 */
function rawGet(url: string, headers: Record<string, string>, giveUpAfterMs?: number, afterBytes = 0): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.get(url, { headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let error: Error | undefined;
      let timer: NodeJS.Timeout | undefined;
      let received = 0;
      const watch = (): void => {
        if (giveUpAfterMs !== undefined && timer === undefined && received >= afterBytes) timer = setTimeout(() => req.destroy(new Error('client gave up')), giveUpAfterMs);
      };
      watch();
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        received += c.length;
        watch();
      });
      res.on('error', (e) => (error = e));
      res.on('close', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, statusMessage: res.statusMessage ?? '', headers: res.headers, body: Buffer.concat(chunks), complete: res.complete, error });
      });
    });
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
  });
}

const auth = () => ({ authorization: `Bearer ${svc.mainKey}` });
const full = async () => (await getBytes(file.url, svc.mainKey)).body;

describe('answer-replacing faults', () => {
  it('status: answers the given status with a JSON error body', async () => {
    await svc.admin.addFault({ path: '^/collections$' }, { type: 'status', status: 503 }, 1);
    expectJsonError(await getJson(`${svc.deliveryBaseUrl}/collections`, svc.mainKey), 503);
    expect((await getJson(`${svc.deliveryBaseUrl}/collections`, svc.mainKey)).status).toBe(200);
  });

  it('rate_limit: 429 with Retry-After in seconds', async () => {
    await svc.admin.addFault({ path: '^/me$' }, { type: 'rate_limit', retryAfter: 7 }, 1);
    const res = await getJson(`${svc.deliveryBaseUrl}/me`, svc.mainKey);
    expectJsonError(res, 429);
    expect(res.headers['retry-after']).toBe('7');
  });

  it('body: replaces the whole answer (malformed JSON, other status and type)', async () => {
    await svc.admin.addFault({ path: '/sets$' }, { type: 'body', body: '{"sets": [' }, 1);
    const res = await getBytes(`${svc.deliveryBaseUrl}/collections/${svc.mainCollection}/sets`, svc.mainKey);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('{"sets": [');
    await svc.admin.addFault({ path: '^/me$' }, { type: 'body', status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' }, 1);
    const html = await getBytes(`${svc.deliveryBaseUrl}/me`, svc.mainKey);
    expect(html.status).toBe(502);
    expect(html.headers['content-type']).toBe('text/html');
    expect(html.body.toString()).toBe('<h1>Bad gateway</h1>');
    // A lying 206: the Content-Range given, whatever was asked; a Content-Range that is not a string is refused.
    await svc.admin.addFault({ path: '^/me$' }, { type: 'body', status: 206, contentType: 'application/octet-stream', contentRange: 'bytes 0-3/99', body: 'abcd' }, 1);
    const partial = await getBytes(`${svc.deliveryBaseUrl}/me`, svc.mainKey);
    expect(partial.status).toBe(206);
    expect(partial.headers['content-range']).toBe('bytes 0-3/99');
    expect(partial.body.toString()).toBe('abcd');
    expect(parseFaultRequest({ fault: { type: 'body', body: 'x', contentRange: 7 } })).toBe('body fault contentRange must be a string');
  });

  it('latency: delays, then answers normally', async () => {
    await svc.admin.addFault({ path: '^/me$' }, { type: 'latency', ms: 150 }, 1);
    const started = Date.now();
    const res = await getJson<{ client: { name: string } }>(`${svc.deliveryBaseUrl}/me`, svc.mainKey);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(res.status).toBe(200);
    expect(res.body.client.name).toBe(svc.clients[0]?.name);
  });
});

describe('stream faults', () => {
  it('reset: headers promise the whole body, exactly afterBytes arrive, then the connection drops', async () => {
    const original = await full();
    for (const afterBytes of [0, 1000, 20_000]) {
      await svc.admin.addFault({ path: '^/files/' }, { type: 'reset', afterBytes }, 1);
      const res = await rawGet(file.url, auth());
      expect(res.status).toBe(200);
      expect(res.headers['content-length']).toBe(String(file.size_bytes));
      expect(res.complete).toBe(false);
      expect(res.body.length).toBe(afterBytes);
      expect(res.body).toEqual(original.subarray(0, afterBytes));
    }
  });

  it('reset on a range request counts from the start of the range', async () => {
    await svc.admin.addFault({ path: '^/files/' }, { type: 'reset', afterBytes: 500 }, 1);
    const res = await rawGet(file.url, { ...auth(), range: 'bytes=4096-' });
    expect(res.status).toBe(206);
    expect(res.body).toEqual((await full()).subarray(4096, 4096 + 500));
    expect(res.complete).toBe(false);
  });

  it('truncate: no Content-Length, ends cleanly after afterBytes, so only size and hash show it', async () => {
    await svc.admin.addFault({ path: '^/files/' }, { type: 'truncate', afterBytes: 12_345 }, 1);
    const res = await rawGet(file.url, auth());
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.complete).toBe(true);
    expect(res.body.length).toBe(12_345);
    expect(res.body).toEqual((await full()).subarray(0, 12_345));
  });

  it('flip: one byte at the absolute file offset differs, so the hash does not match', async () => {
    const original = await full();
    await svc.admin.addFault({ path: '^/files/' }, { type: 'flip', atByte: 777 }, 1);
    const res = await getBytes(file.url, svc.mainKey);
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(file.size_bytes);
    expect(sha256(res.body)).not.toBe(file.sha256);
    const differing = [...res.body.keys()].filter((i) => res.body[i] !== original[i]);
    expect(differing).toEqual([777]);
    await svc.admin.addFault({ path: '^/files/' }, { type: 'flip', atByte: 5000 }, 1);
    const ranged = await getBytes(file.url, svc.mainKey, { range: 'bytes=4000-5999' });
    expect(ranged.status).toBe(206);
    const diffs = [...ranged.body.keys()].filter((i) => ranged.body[i] !== original[4000 + i]);
    expect(diffs).toEqual([1000]);
  });

  it('ignore_range: answers 200 with the full body although a range was asked', async () => {
    await svc.admin.addFault({ path: '^/files/' }, { type: 'ignore_range' }, 1);
    const res = await getBytes(file.url, svc.mainKey, { range: 'bytes=100-' });
    expect(res.status).toBe(200);
    expect(res.headers['content-range']).toBeUndefined();
    expect(sha256(res.body)).toBe(file.sha256);
  });

  it('stall with ms: afterBytes, a pause, then the rest of the body', async () => {
    await svc.admin.addFault({ path: '^/files/' }, { type: 'stall', afterBytes: 2048, ms: 100 }, 1);
    const res = await rawGet(file.url, auth());
    expect(res.complete).toBe(true);
    expect(sha256(res.body)).toBe(file.sha256);
  });

  it('stall without ms: afterBytes, then nothing until the client gives up', async () => {
    await svc.admin.addFault({ path: '^/files/' }, { type: 'stall', afterBytes: 3000 }, 1);
    const res = await rawGet(file.url, auth(), 400);
    expect(res.complete).toBe(false);
    expect(res.body).toEqual((await full()).subarray(0, 3000));
    // The service is still healthy for the next request.
    expect(sha256((await getBytes(file.url, svc.mainKey)).body)).toBe(file.sha256);
  });

  it('stream faults also apply to JSON answers (a cut page)', async () => {
    await svc.admin.addFault({ path: '/sets$' }, { type: 'truncate', afterBytes: 50 }, 1);
    const res = await rawGet(`${svc.deliveryBaseUrl}/collections/${svc.mainCollection}/sets`, auth());
    expect(res.body.length).toBe(50);
    expect(() => JSON.parse(res.body.toString())).toThrow();
  });
});

describe('endless_feed', () => {
  it('keeps has_more true on every page and answers the last page again past the end; files are untouched', async () => {
    const base = `${svc.deliveryBaseUrl}/collections/${svc.mainCollection}/sets?per_page=2`;
    const clean = await getJson<ApiSetsPage>(`${base}&page=2`, svc.mainKey);
    expect(clean.body.has_more).toBe(false);
    await svc.admin.addFault({ path: '/sets$' }, { type: 'endless_feed' });
    const last = await getJson<ApiSetsPage>(`${base}&page=2`, svc.mainKey);
    const past = await getJson<ApiSetsPage>(`${base}&page=9`, svc.mainKey);
    expect(last.body.has_more).toBe(true);
    expect(past.body.has_more).toBe(true);
    expect(past.body.page).toBe(9);
    expect(past.body.total).toBe(3);
    expect(past.body.sets.map((s) => s.id)).toEqual(clean.body.sets.map((s) => s.id));
    const body = await getBytes(file.url, svc.mainKey);
    expect(sha256(body.body)).toBe(file.sha256);
  });
});

describe('trickle', () => {
  it('sends the headers at once, then bytes per step: one step and nothing more during a long pause', async () => {
    await svc.admin.addFault({ path: '^/files/' }, { type: 'trickle', bytes: 100, everyMs: 60_000 }, 1);
    const res = await rawGet(file.url, auth(), 200, 100);
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(file.size_bytes));
    expect(res.complete).toBe(false);
    expect(res.body).toEqual((await full()).subarray(0, 100));
  });

  it('completes a file body (also a range) intact', async () => {
    await svc.admin.addFault({ path: '^/files/' }, { type: 'trickle', bytes: 4000, everyMs: 1 }, 2);
    const whole = await rawGet(file.url, auth());
    expect(whole.complete).toBe(true);
    expect(sha256(whole.body)).toBe(file.sha256);
    const ranged = await rawGet(file.url, { ...auth(), range: 'bytes=1000-9999' });
    expect(ranged.status).toBe(206);
    expect(ranged.body).toEqual((await full()).subarray(1000, 10_000));
  });

  it('trickles JSON answers of both APIs, which arrive complete and unchanged', async () => {
    const organization = svc.organizations[0]?.apiKey ?? '';
    const normalDelivery = await getJson(`${svc.deliveryBaseUrl}/collections`, svc.mainKey);
    const normalRecruiter = await getJson(`${svc.recruiterBaseUrl}/me`, organization);
    await svc.admin.addFault({ api: 'delivery', path: '^/collections$' }, { type: 'trickle', bytes: 7, everyMs: 1 }, 1);
    await svc.admin.addFault({ api: 'recruiter', path: '^/me$' }, { type: 'trickle', bytes: 5, everyMs: 1 }, 1);
    const delivery = await rawGet(`${svc.deliveryBaseUrl}/collections`, auth());
    const recruiter = await rawGet(`${svc.recruiterBaseUrl}/me`, { authorization: `Bearer ${organization}` });
    expect(JSON.parse(delivery.body.toString())).toEqual(normalDelivery.body);
    expect(JSON.parse(recruiter.body.toString())).toEqual(normalRecruiter.body);
    expect(await svc.admin.listFaults()).toEqual([]);
  });
});

describe('echo_auth', () => {
  const secret = () => `Bearer ${svc.mainKey}`;

  it('default 500: the Authorization value in the error body, X-Echo-Authorization and the reason phrase', async () => {
    await svc.admin.addFault({ path: '^/me$' }, { type: 'echo_auth' }, 1);
    const res = await rawGet(`${svc.deliveryBaseUrl}/me`, auth());
    expect(res.status).toBe(500);
    const body = JSON.parse(res.body.toString()) as { error: string };
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toContain(secret());
    expect(res.headers['x-echo-authorization']).toBe(secret());
    expect(res.statusMessage).toContain(secret());
  });

  it('recruiter: its own error shape, with the value also in errors', async () => {
    const key = svc.organizations[0]?.apiKey ?? '';
    await svc.admin.addFault({ api: 'recruiter' }, { type: 'echo_auth', status: 401 }, 1);
    const res = await rawGet(`${svc.recruiterBaseUrl}/jobs`, { authorization: `Bearer ${key}` });
    expect(res.status).toBe(401);
    const body = JSON.parse(res.body.toString()) as { error: string; errors: Record<string, string[]> };
    expect(body.error).toContain(key);
    expect(body.errors.authorization).toEqual([`Bearer ${key}`]);
    expect(res.headers['x-echo-authorization']).toBe(`Bearer ${key}`);
    expect(res.statusMessage).toContain(key);
  });

  it('status 200: the real answer plus an echo field; file bodies stay intact', async () => {
    const normal = (await getJson<Record<string, unknown>>(`${svc.deliveryBaseUrl}/collections`, svc.mainKey)).body;
    await svc.admin.addFault({ path: '^/collections$' }, { type: 'echo_auth', status: 200 }, 1);
    const res = await rawGet(`${svc.deliveryBaseUrl}/collections`, auth());
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString())).toEqual({ ...normal, echo: secret() });
    expect(res.statusMessage).toContain(secret());
    await svc.admin.addFault({ path: '^/files/' }, { type: 'echo_auth', status: 200 }, 1);
    const download = await rawGet(file.url, auth());
    expect(sha256(download.body)).toBe(file.sha256);
    expect(download.headers['x-echo-authorization']).toBe(secret());
  });

  it('strips CR and LF from the header and reason phrase but not from the body', () => {
    const plan = echoErrorPlan('delivery', 502, 'Bearer a\r\nInjected: yes');
    expect(plan.reason).toBe('Bad Gateway (Authorization: Bearer aInjected: yes)');
    expect(plan.headers['x-echo-authorization']).toBe('Bearer aInjected: yes');
    expect(plan.body.kind === 'buffer' && JSON.parse(plan.body.data.toString())).toEqual({ error: 'injected fault: the request carried Authorization: Bearer a\r\nInjected: yes' });
  });
});

describe('matching and bookkeeping', () => {
  it('times retires a fault after that many matching requests; hits are counted', async () => {
    const id = await svc.admin.addFault({ path: '^/me$' }, { type: 'status', status: 500 }, 2);
    expect(await svc.admin.listFaults()).toEqual([{ id, match: { path: '^/me$' }, fault: { type: 'status', status: 500 }, times: 2, hits: 0 }]);
    expect((await getJson(`${svc.deliveryBaseUrl}/collections`, svc.mainKey)).status).toBe(200);
    expect((await getJson(`${svc.deliveryBaseUrl}/me`, svc.mainKey)).status).toBe(500);
    expect((await svc.admin.listFaults())[0]?.hits).toBe(1);
    expect((await getJson(`${svc.deliveryBaseUrl}/me`, svc.mainKey)).status).toBe(500);
    expect(await svc.admin.listFaults()).toEqual([]);
    expect((await getJson(`${svc.deliveryBaseUrl}/me`, svc.mainKey)).status).toBe(200);
  });

  it('without times a fault stays until deleted (by id or all)', async () => {
    const id = await svc.admin.addFault({ path: '^/me$' }, { type: 'status', status: 503 });
    for (let i = 0; i < 3; i++) expect((await getJson(`${svc.deliveryBaseUrl}/me`, svc.mainKey)).status).toBe(503);
    await svc.admin.deleteFault(id);
    expect((await getJson(`${svc.deliveryBaseUrl}/me`, svc.mainKey)).status).toBe(200);
    await svc.admin.addFault({}, { type: 'status', status: 500 });
    expect((await getJson(`${svc.deliveryBaseUrl}/collections`, svc.mainKey)).status).toBe(500);
    await svc.admin.clearFaults();
    expect((await getJson(`${svc.deliveryBaseUrl}/collections`, svc.mainKey)).status).toBe(200);
    await expect(svc.admin.deleteFault(9999)).rejects.toThrow(/404/);
  });

  it('matches on method and api', async () => {
    await svc.admin.addFault({ method: 'HEAD' }, { type: 'status', status: 500 });
    await svc.admin.addFault({ api: 'recruiter' }, { type: 'status', status: 502 });
    expect((await getJson(`${svc.deliveryBaseUrl}/me`, svc.mainKey)).status).toBe(200);
    expect((await getBytes(file.url, svc.mainKey, {}, 'HEAD')).status).toBe(500);
    expect((await getJson(`${svc.recruiterBaseUrl}/me`, null)).status).toBe(502);
  });

  it('applies before authentication (the server fails before it looks at the key)', async () => {
    await svc.admin.addFault({ path: '^/me$' }, { type: 'status', status: 503 }, 1);
    expect((await getJson(`${svc.deliveryBaseUrl}/me`, null)).status).toBe(503);
  });

  it('refuses malformed fault requests with 400', async () => {
    for (const body of [
      { match: {}, fault: { type: 'explode' } },
      { match: { path: '(' }, fault: { type: 'status', status: 500 } },
      { match: {}, fault: { type: 'reset' } },
      { match: {}, fault: { type: 'status', status: 500 }, times: 0 },
      { match: { api: 'other' }, fault: { type: 'status', status: 500 } },
      { match: {}, fault: { type: 'trickle', bytes: 0, everyMs: 10 } },
      { match: {}, fault: { type: 'trickle', bytes: 10 } },
      { match: {}, fault: { type: 'echo_auth', status: 302 } },
      { match: {}, fault: { type: 'echo_auth', status: '500' } },
    ]) {
      const res = await fetch(`${svc.adminBaseUrl}/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${svc.adminToken}` },
        body: JSON.stringify(body),
      });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBeTruthy();
    }
  });
});

describe('close', () => {
  const open: Array<[string, Fault, number]> = [
    ['a stalled download', { type: 'stall', afterBytes: 100 }, 100],
    ['a trickle in a long pause', { type: 'trickle', bytes: 10, everyMs: 60_000 }, 10],
  ];
  it.each(open)('closes promptly even with %s open', async (_name, fault, sent) => {
    const other = await startTestService({ sets: 1 });
    try {
      const f = (await walkSets(other.deliveryBaseUrl, other.mainKey, other.mainCollection))[0]?.files[0] as ApiFile;
      await other.admin.addFault({ path: '^/files/' }, fault);
      const pending = rawGet(f.url, { authorization: `Bearer ${other.mainKey}` });
      await new Promise((r) => setTimeout(r, 100));
      await other.close();
      const res = await pending;
      expect(res.complete).toBe(false);
      expect(res.body.length).toBe(sent);
    } finally {
      await other.stop();
    }
  });
});

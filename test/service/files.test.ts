// Contract tests of GET /files/:id: bodies, headers, ranges, If-Range, scoping.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectJsonError, getBytes, getJson, sha256, startTestService, walkSets, type ApiFile, type ApiSet, type ApiSetsPage, type TestService } from './support';

let svc: TestService;
let base: string;
let sets: ApiSet[];
let file: ApiFile;
let body: Buffer;

beforeAll(async () => {
  svc = await startTestService({ sets: 6 });
  base = svc.deliveryBaseUrl;
  sets = await walkSets(base, svc.mainKey, svc.mainCollection);
  file = sets[0]?.files[0] as ApiFile;
  body = (await getBytes(file.url, svc.mainKey)).body;
});
afterAll(async () => {
  await svc.stop();
});

const header = (h: Record<string, string | string[] | undefined>, name: string) => h[name] as string | undefined;

describe('full downloads', () => {
  it('streams every file of every accepted set with the advertised size and sha256', async () => {
    for (const set of sets) {
      for (const f of set.files) {
        const res = await getBytes(f.url, svc.mainKey);
        expect(res.status).toBe(200);
        expect(res.body.length).toBe(f.size_bytes);
        expect(sha256(res.body)).toBe(f.sha256);
        expect(header(res.headers, 'etag')).toBe(`"${f.sha256}"`);
      }
    }
  });

  it('sends the contract headers', async () => {
    const res = await getBytes(file.url, svc.mainKey);
    expect(header(res.headers, 'content-type')).toBe(file.content_type);
    expect(header(res.headers, 'content-length')).toBe(String(file.size_bytes));
    expect(header(res.headers, 'content-disposition')).toBe(`attachment; filename="${file.filename}"`);
    expect(header(res.headers, 'accept-ranges')).toBe('bytes');
    expect(header(res.headers, 'content-range')).toBeUndefined();
  });

  it('answers HEAD with the same headers and no body', async () => {
    const res = await getBytes(file.url, svc.mainKey, {}, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(0);
    expect(header(res.headers, 'content-length')).toBe(String(file.size_bytes));
    expect(header(res.headers, 'etag')).toBe(`"${file.sha256}"`);
  });
});

describe('ranges', () => {
  const size = () => file.size_bytes;

  it('serves bytes=a- as 206 with Content-Range, and the parts add up to the file', async () => {
    const head = body.subarray(0, 1000);
    const res = await getBytes(file.url, svc.mainKey, { range: 'bytes=1000-' });
    expect(res.status).toBe(206);
    expect(header(res.headers, 'content-range')).toBe(`bytes 1000-${size() - 1}/${size()}`);
    expect(header(res.headers, 'content-length')).toBe(String(size() - 1000));
    expect(header(res.headers, 'etag')).toBe(`"${file.sha256}"`);
    expect(sha256(Buffer.concat([head, res.body]))).toBe(file.sha256);
  });

  it('serves closed ranges, clamps an end past the file, and serves suffix ranges', async () => {
    const closed = await getBytes(file.url, svc.mainKey, { range: 'bytes=10-19' });
    expect(closed.status).toBe(206);
    expect(header(closed.headers, 'content-range')).toBe(`bytes 10-19/${size()}`);
    expect(closed.body).toEqual(body.subarray(10, 20));
    const clamped = await getBytes(file.url, svc.mainKey, { range: `bytes=${size() - 5}-${size() + 100}` });
    expect(header(clamped.headers, 'content-range')).toBe(`bytes ${size() - 5}-${size() - 1}/${size()}`);
    expect(clamped.body).toEqual(body.subarray(size() - 5));
    const suffix = await getBytes(file.url, svc.mainKey, { range: 'bytes=-100' });
    expect(suffix.status).toBe(206);
    expect(header(suffix.headers, 'content-range')).toBe(`bytes ${size() - 100}-${size() - 1}/${size()}`);
    expect(suffix.body).toEqual(body.subarray(size() - 100));
    const lastByte = await getBytes(file.url, svc.mainKey, { range: `bytes=${size() - 1}-` });
    expect(lastByte.body).toEqual(body.subarray(size() - 1));
  });

  it('answers an unsatisfiable range with 416 and Content-Range bytes */total', async () => {
    for (const range of [`bytes=${size()}-`, `bytes=${size() + 10}-${size() + 20}`, 'bytes=-0']) {
      const res = await getJson(file.url, svc.mainKey, { range });
      expectJsonError(res, 416);
      expect(header(res.headers, 'content-range')).toBe(`bytes */${size()}`);
    }
  });

  it('ignores ranges it does not understand and sends the whole file', async () => {
    for (const range of ['items=0-10', 'bytes=abc', 'bytes=20-10', 'bytes=0-1,5-6']) {
      const res = await getBytes(file.url, svc.mainKey, { range });
      expect(res.status, range).toBe(200);
      expect(sha256(res.body)).toBe(file.sha256);
    }
  });

  it('honours If-Range only when it equals the current ETag', async () => {
    const match = await getBytes(file.url, svc.mainKey, { range: 'bytes=100-', 'if-range': `"${file.sha256}"` });
    expect(match.status).toBe(206);
    expect(match.body).toEqual(body.subarray(100));
    for (const validator of [`"${'0'.repeat(64)}"`, `W/"${file.sha256}"`, file.sha256, 'Sun, 22 Nov 2026 10:00:00 GMT']) {
      const res = await getBytes(file.url, svc.mainKey, { range: 'bytes=100-', 'if-range': validator });
      expect(res.status, validator).toBe(200);
      expect(header(res.headers, 'content-range')).toBeUndefined();
      expect(sha256(res.body)).toBe(file.sha256);
    }
    // A stale validator also lifts a range that would be unsatisfiable: the client gets the new file.
    const stale = await getBytes(file.url, svc.mainKey, { range: `bytes=${size()}-`, 'if-range': '"stale"' });
    expect(stale.status).toBe(200);
  });
});

describe('scoping', () => {
  it('answers 404 for another client\'s files, unknown ids and files of sets not accepted', async () => {
    expectJsonError(await getJson(file.url, svc.otherKey), 404);
    expectJsonError(await getJson(`${base}/files/1`, svc.mainKey), 404);
    expectJsonError(await getJson(`${base}/files/x`, svc.mainKey), 404);
    const foreignCollection = svc.clients[1]?.collections[0] as number;
    const foreign = (await getJson<ApiSetsPage>(`${base}/collections/${foreignCollection}/sets`, svc.otherKey)).body.sets[0] as ApiSet;
    const foreignFile = foreign.files[0] as ApiFile;
    expect((await getBytes(foreignFile.url, svc.otherKey)).status).toBe(200);
    expectJsonError(await getJson(foreignFile.url, svc.mainKey), 404);
    const rejected = (await getJson<ApiSetsPage>(`${base}/collections/${svc.mainCollection}/sets?status=rejected`, svc.mainKey)).body.sets[0] as ApiSet;
    expectJsonError(await getJson((rejected.files[0] as ApiFile).url, svc.mainKey), 404);
    expectJsonError(await getJson(file.url, null), 401);
  });
});

// Real demo videos (issue 22, point 1): every shipped clip is what clips.json says, every served
// body is a video that file(1) and ffprobe recognise with the listing's values, the clean demo
// satisfies its collection's media_rules, and each media fault switch flips exactly what it
// should (and back). Checks that need `file` or `ffprobe` skip, saying why, when they are absent.

import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getBytes, getJson, sha256, startTestService, walkSets, type ApiCollectionDetail, type ApiFile, type TestService } from './support';
import { ffprobeVideo, toolPresent } from '../support/media-tools';

const MEDIA_DIR = fileURLToPath(new URL('../../src-service/media/', import.meta.url));
const hasFfprobe = toolPresent('ffprobe');
const hasFile = spawnSync('file', ['--version']).status === 0;
const NO_FFPROBE = 'ffprobe is not installed (apt-get install ffmpeg)';
const NO_FILE = 'file(1) is not installed (apt-get install file)';

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => execFile(cmd, args, (error, stdout, stderr) => (error ? reject(new Error(`${cmd}: ${stderr || error.message}`)) : resolve(stdout))));
}

/** What ffprobe says of a file, in the listing's terms (fps from r_frame_rate, duration of the container). */
/** A generous bound for tests that run ffprobe many times on a loaded machine (never a timing assertion). */
const PROBE_TIMEOUT_MS = 300_000;

/** Runs `fn` over `items`, four at a time. */
async function inBatches<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += 4) await Promise.all(items.slice(i, i + 4).map(fn));
}

const MIME_OF_EXT: Record<string, string> = { mp4: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm', mkv: 'video/x-matroska', avi: 'video/x-msvideo' };
const FORMAT_OF_EXT: Record<string, string> = { mp4: 'mp4', mov: 'mov', webm: 'webm', mkv: 'matroska', avi: 'avi' };

let svc: TestService;
let tmp: string;

/** Downloads a served file into the temp folder (named as served) and checks it against its listing's size and sha256. */
async function fetchFile(f: ApiFile): Promise<string> {
  const res = await getBytes(f.url, svc.mainKey);
  expect(res.status).toBe(200);
  expect(res.body.length).toBe(f.size_bytes);
  expect(sha256(res.body)).toBe(f.sha256);
  expect(res.headers['content-type']).toBe(f.content_type);
  const file = path.join(tmp, f.filename);
  await fs.writeFile(file, res.body);
  return file;
}

async function mainSets() {
  return walkSets(svc.deliveryBaseUrl, svc.mainKey, svc.mainCollection);
}

async function fileById(id: number): Promise<{ file: ApiFile; updatedAt: string }> {
  for (const set of await mainSets()) {
    const file = set.files.find((f) => f.id === id);
    if (file) return { file, updatedAt: set.updated_at };
  }
  throw new Error(`file ${id} not listed`);
}

async function rulesOf(collectionId: number): Promise<ApiCollectionDetail['spec']['media_rules']> {
  const detail = await getJson<{ collection: ApiCollectionDetail }>(`${svc.deliveryBaseUrl}/collections/${collectionId}`, svc.mainKey);
  return detail.body.collection.spec.media_rules;
}

function broken(rules: ApiCollectionDetail['spec']['media_rules'], f: ApiFile): string[] {
  const out: string[] = [];
  const m = f.media;
  if (m.width < rules.min_width || m.height < rules.min_height) out.push('size');
  if (m.fps < rules.min_fps) out.push('fps');
  if (m.duration < rules.min_duration || m.duration > rules.max_duration) out.push('duration');
  if (!rules.formats.includes(FORMAT_OF_EXT[path.extname(f.filename).slice(1)] ?? '?')) out.push('format');
  return out;
}

beforeAll(async () => {
  svc = await startTestService({ sets: 6 });
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'ds-service-media-'));
});
afterEach(async () => {
  await svc.admin.clearFaults();
});
afterAll(async () => {
  await svc.stop();
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('shipped clips', () => {
  it('clips.json holds the size and sha256 of every clip in the folder, and nothing else is there', async () => {
    const sidecar = JSON.parse(await fs.readFile(path.join(MEDIA_DIR, 'clips.json'), 'utf8')) as { clips: Array<{ file: string; size_bytes: number; sha256: string }> };
    const names = (await fs.readdir(MEDIA_DIR)).filter((n) => n !== 'clips.json').sort();
    expect(sidecar.clips.map((c) => c.file).sort()).toEqual(names);
    for (const c of sidecar.clips) {
      const bytes = await fs.readFile(path.join(MEDIA_DIR, c.file));
      expect([c.file, bytes.length, createHash('sha256').update(bytes).digest('hex')]).toEqual([c.file, c.size_bytes, c.sha256]);
      expect(bytes.length).toBeLessThan(64 * 1024);
    }
  });

  it.skipIf(!hasFfprobe)(`ffprobe says of every clip what clips.json says (${hasFfprobe ? 'ffprobe present' : NO_FFPROBE})`, { timeout: PROBE_TIMEOUT_MS }, async () => {
    const sidecar = JSON.parse(await fs.readFile(path.join(MEDIA_DIR, 'clips.json'), 'utf8')) as { clips: Array<{ file: string; width: number; height: number; fps: number; duration: number; codec: string }> };
    await inBatches(sidecar.clips, async (c) => {
      const { formatName: _ignored, ...probed } = await ffprobeVideo(path.join(MEDIA_DIR, c.file));
      expect({ file: c.file, ...probed }).toEqual({ file: c.file, width: c.width, height: c.height, fps: c.fps, duration: c.duration, codec: c.codec });
    });
  });
});

describe('served videos', () => {
  it('every collection of the demo is clean: each listing meets its media_rules, names and types match the format', async () => {
    for (const client of svc.clients) {
      for (const collectionId of client.collections) {
        const rules = await rulesOf(collectionId).catch(() => undefined);
        if (!rules) continue; // another client's collection
        const sets = await walkSets(svc.deliveryBaseUrl, client.apiKey, collectionId);
        expect(sets.length).toBeGreaterThan(0);
        for (const set of sets) {
          for (const f of set.files) {
            const ext = path.extname(f.filename).slice(1);
            expect([f.filename, f.content_type]).toEqual([f.filename, MIME_OF_EXT[ext]]);
            expect([f.filename, broken(rules, f)]).toEqual([f.filename, []]);
          }
        }
      }
    }
  });

  it.skipIf(!hasFfprobe)(`ffprobe of a served body of every clip equals its listing (${hasFfprobe ? 'ffprobe present' : NO_FFPROBE})`, { timeout: PROBE_TIMEOUT_MS }, async () => {
    // Files of one clip differ only in their stamp: one probe per distinct listing covers every clip served.
    const files = (await mainSets()).flatMap((s) => s.files);
    const distinct = [...new Map(files.map((f) => [`${f.content_type} ${JSON.stringify(f.media)}`, f])).values()];
    expect(distinct.length).toBeGreaterThan(1);
    await inBatches(distinct, async (f) => {
      const { formatName, ...probed } = await ffprobeVideo(await fetchFile(f));
      expect({ file: f.filename, ...probed }).toEqual({ file: f.filename, ...f.media });
      expect(formatName).toContain('mp4');
    });
  });

  it.skipIf(!hasFile)(`file(1) calls every served body a video of its content type (${hasFile ? 'file present' : NO_FILE})`, { timeout: PROBE_TIMEOUT_MS }, async () => {
    const files = (await mainSets()).flatMap((s) => s.files);
    await inBatches(files, async (f) => {
      const mime = (await run('file', ['--brief', '--mime-type', await fetchFile(f)])).trim();
      expect([f.filename, mime]).toEqual([f.filename, f.content_type]);
    });
  });

  it('every file has its own sha256; a range is a slice of the whole body', async () => {
    const files = (await mainSets()).flatMap((s) => s.files);
    expect(new Set(files.map((f) => f.sha256)).size).toBe(files.length);
    const f = files[0] as ApiFile;
    const whole = (await getBytes(f.url, svc.mainKey)).body;
    const part = await getBytes(f.url, svc.mainKey, { range: 'bytes=100-1099' });
    expect(part.status).toBe(206);
    expect(part.body.equals(whole.subarray(100, 1100))).toBe(true);
  });

  it('an admin edit of a real video gives a new sha256, same clip, still a video', async () => {
    const set = (await mainSets())[1]!;
    const before = set.files[0]!;
    const edited = (await svc.admin.editSet(set.id, { slot_index: 1 })).files[0] as unknown as ApiFile;
    expect(edited.sha256).not.toBe(before.sha256);
    expect(edited.size_bytes).toBe(before.size_bytes);
    expect(edited.media).toEqual(before.media);
    const file = await fetchFile(edited);
    if (hasFfprobe) expect((await ffprobeVideo(file)).width).toBe(before.media.width);
  });
});

describe('media fault switches', () => {
  it('are off by default', async () => {
    expect(await svc.admin.listMediaFaults()).toEqual([]);
  });

  it('too_small, too_short and wrong_format serve a video that breaks one rule, with a true listing; off restores the file', async () => {
    const rules = await rulesOf(svc.mainCollection);
    const expected = { too_small: ['size'], too_short: ['duration'], wrong_format: ['format'] } as const;
    for (const kind of ['too_small', 'too_short', 'wrong_format'] as const) {
      const listed = new Map((await mainSets()).flatMap((s) => s.files).map((f) => [f.id, f]));
      const entry = await svc.admin.addMediaFault(kind);
      const listedBefore = listed.get(entry.file_id)!;
      const { file, updatedAt } = await fileById(entry.file_id);
      expect(broken(rules, file)).toEqual(expected[kind]);
      expect(file.sha256).not.toBe(listedBefore.sha256);
      const local = await fetchFile(file);
      if (hasFfprobe) {
        const { formatName: _f, ...probed } = await ffprobeVideo(local);
        expect(probed).toEqual(file.media);
      }
      if (kind === 'wrong_format') expect([path.extname(file.filename), file.content_type]).toEqual(['.avi', 'video/x-msvideo']);
      // Off again: the very same bytes and listing as before, and the set changed again.
      await svc.admin.deleteMediaFault(entry.id);
      const { file: restored, updatedAt: after } = await fileById(entry.file_id);
      expect([restored.sha256, restored.size_bytes, restored.filename]).toEqual([listedBefore.sha256, listedBefore.size_bytes, listedBefore.filename]);
      expect(broken(rules, restored)).toEqual([]);
      expect(Date.parse(after)).toBeGreaterThan(Date.parse(updatedAt) - 1);
    }
  });

  it('listing_lies and wrong_codec keep the bytes and change only the listing, and move updated_at', async () => {
    const sets = await mainSets();
    const target = sets[2]!;
    const original = target.files[1]!;
    const lies = await svc.admin.addMediaFault('listing_lies', { set_id: target.id, slot_index: 2 });
    expect([lies.set_id, lies.slot_index, lies.file_id]).toEqual([target.id, 2, original.id]);
    const { file: lying, updatedAt } = await fileById(original.id);
    expect(Date.parse(updatedAt)).toBeGreaterThan(Date.parse(target.updated_at));
    expect(lying.sha256).toBe(original.sha256);
    expect([lying.media.width, lying.media.height]).toEqual([1920, 1080]);
    if (hasFfprobe) expect((await ffprobeVideo(await fetchFile(lying))).width).toBe(original.media.width);

    const codec = await svc.admin.addMediaFault('wrong_codec', { set_id: target.id, slot_index: 3 });
    const { file: wrong } = await fileById(codec.file_id);
    if (hasFfprobe) expect((await ffprobeVideo(await fetchFile(wrong))).codec).not.toBe(wrong.media.codec);
    expect(wrong.media.codec).toMatch(/^(hevc|h264)$/);

    expect((await svc.admin.listMediaFaults()).map((e) => e.kind)).toEqual(['listing_lies', 'wrong_codec']);
    await svc.admin.clearFaults(); // clears media faults too
    expect(await svc.admin.listMediaFaults()).toEqual([]);
    expect((await fileById(original.id)).file.media).toEqual(original.media);
  });

  it('refuses a second fault on one file (409) and unknown kinds (400)', async () => {
    const entry = await svc.admin.addMediaFault('too_small');
    await expect(svc.admin.addMediaFault('too_short', { set_id: entry.set_id, slot_index: entry.slot_index })).rejects.toMatchObject({ status: 409 });
    await expect(svc.admin.addMediaFault('blurry' as never)).rejects.toMatchObject({ status: 400 });
  });

  it('mediaFaults: true starts with one file of each kind, each in its own set', async () => {
    const other = await startTestService({ sets: 6, mediaFaults: true });
    try {
      const entries = await other.admin.listMediaFaults();
      expect(entries.map((e) => e.kind)).toEqual(['too_small', 'too_short', 'wrong_format', 'listing_lies', 'wrong_codec']);
      expect(new Set(entries.map((e) => e.set_id)).size).toBe(5);
    } finally {
      await other.stop();
    }
  });
});

describe('synthetic bodies when a size is asked for', () => {
  it('fileSize gives bodies of that size, as before; media faults still switch', async () => {
    const other = await startTestService({ sets: 2, fileSize: 5000 });
    try {
      const sets = await walkSets(other.deliveryBaseUrl, other.mainKey, other.mainCollection);
      for (const f of sets.flatMap((s) => s.files)) {
        expect(f.size_bytes).toBe(5000);
        expect(sha256((await getBytes(f.url, other.mainKey)).body)).toBe(f.sha256);
      }
      // Media faults work there too: the file becomes a real clip (which the listing may lie about), and back.
      const target = sets[0]!.files[0]!;
      await other.admin.addMediaFault('too_small', { set_id: sets[0]!.id });
      const faulty = (await walkSets(other.deliveryBaseUrl, other.mainKey, other.mainCollection))[0]!.files[0]!;
      expect([faulty.media.width, faulty.media.height]).toEqual([160, 120]);
      expect(sha256((await getBytes(faulty.url, other.mainKey)).body)).toBe(faulty.sha256);
      await other.admin.clearMediaFaults();
      const back = (await walkSets(other.deliveryBaseUrl, other.mainKey, other.mainCollection))[0]!.files[0]!;
      expect([back.size_bytes, back.sha256]).toEqual([5000, target.sha256]);
    } finally {
      await other.stop();
    }
  });
});

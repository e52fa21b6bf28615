// participants.csv, media.csv and croissant.json cost what changed (issue 21: a sync that brings
// 10 new sets): when the manifest takes the new sets as appended rows, the three files are extended
// the same way (croissant.json: its closing part replaced), and they are byte for byte what a full
// rewrite from every record writes. A no-op says media.csv's counts as the state recorded them
// with the file, without reading it again; an append continues the tables' hashes without reading
// the tables.
import { editHead, readHead } from '../support/head';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import * as croissantFile from '../../src-main/sync/croissant-file';
import { LocalFolder } from '../../src-main/sync/destination/local/local-folder';
import * as participantsFile from '../../src-main/sync/participants-file';
import { ResumableSha256 } from '../../src-main/sync/table-hash';
import { sync, useService, useSyncedDataset } from './helpers';

// Spies only (the real writers run): they tell whether a file was written whole.
vi.mock('../../src-main/sync/participants-file', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src-main/sync/participants-file')>();
  return { ...real, writeParticipantsCsv: vi.fn((...args: Parameters<typeof real.writeParticipantsCsv>) => real.writeParticipantsCsv(...args)) };
});
vi.mock('../../src-main/sync/croissant-file', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src-main/sync/croissant-file')>();
  return { ...real, writeCroissant: vi.fn((...args: Parameters<typeof real.writeCroissant>) => real.writeCroissant(...args)) };
});

const FILES = ['participants.csv', 'media.csv', 'croissant.json'] as const;

describe('appended research files', () => {
  const env = useService({ sets: 4, fileSize: 1024, slots: 2 });
  const ds = useSyncedDataset(env, 'dsync-research-append-');
  const read = (name: string) => fs.readFile(path.join(ds.dest, name), 'utf8');
  const readAll = async () => Object.fromEntries(await Promise.all(FILES.map(async (f) => [f, await read(f)] as const)));
  const research = async () => readHead(ds.dest).research as { croissantClosing: number };

  it('extends them by the new sets, and they equal a full rewrite', async () => {
    const { svc, collectionId } = env;
    // Sets are appended twice: the second append starts from files that were appended themselves.
    for (const count of [3, 2]) {
      const before = await readAll();
      const { croissantClosing } = await research();
      vi.mocked(participantsFile.writeParticipantsCsv).mockClear();
      vi.mocked(croissantFile.writeCroissant).mockClear();
      const added = await svc.admin.addSets(collectionId, { count });
      const appended = await sync(svc, ds.dest);
      expect(appended.summary.exitCode).toBe(0);
      expect(appended.summary.filesDownloaded).toBe(count * 2);
      expect(participantsFile.writeParticipantsCsv).not.toHaveBeenCalled();
      expect(croissantFile.writeCroissant).not.toHaveBeenCalled();
      const after = await readAll();
      expect(after['participants.csv']!.startsWith(before['participants.csv']!)).toBe(true);
      expect(after['media.csv']!.startsWith(before['media.csv']!)).toBe(true);
      const kept = Buffer.from(before['croissant.json']!).subarray(0, Buffer.byteLength(before['croissant.json']!) - croissantClosing);
      expect(Buffer.from(after['croissant.json']!).subarray(0, kept.length).equals(kept)).toBe(true);
      // Still one JSON document, naming every new file once and the tables as they are now.
      const croissant = JSON.parse(after['croissant.json']!) as { distribution: Array<{ contentUrl: string; sha256: string; contentSize: string }> };
      for (const set of added) for (const f of set.files) expect(croissant.distribution.filter((fo) => fo.contentUrl === `sets/${set.id}/${f.filename}`).map((fo) => fo.sha256)).toEqual([f.sha256]);
      for (const table of ['manifest.csv', 'participants.csv']) {
        const bytes = await fs.readFile(path.join(ds.dest, table));
        expect(croissant.distribution.filter((fo) => fo.contentUrl === table).map((fo) => [fo.sha256, fo.contentSize])).toEqual([[createHash('sha256').update(bytes).digest('hex'), `${bytes.length} B`]]);
      }

      // A full rewrite: the manifest's mtime no longer matches, so a no-op sync writes the index, media.csv and both research files whole.
      await fs.utimes(path.join(ds.dest, 'manifest.csv'), new Date(), new Date(Date.now() - 60_000));
      const whole = await sync(svc, ds.dest);
      expect(whole.summary.exitCode).toBe(0);
      expect(participantsFile.writeParticipantsCsv).toHaveBeenCalledTimes(1);
      expect(croissantFile.writeCroissant).toHaveBeenCalledTimes(1);
      expect(await readAll()).toEqual(after);
      for (const k of ['consentMissingSets', 'mediaProblems', 'mediaUnprobed'] as const) expect(whole.summary[k]).toBe(appended.summary[k]);
    }
  });

  it("says media.csv's counts as recorded with it while it is as written, without reading it", async () => {
    const first = await sync(env.svc, ds.dest);
    expect(first.summary.exitCode).toBe(0);
    const { mediaProblems, mediaUnprobed } = first.summary;
    expect(mediaUnprobed).toBe(0); // the media check reads every file's headers as it is downloaded
    const file = path.join(ds.dest, 'media.csv');
    const orig = path.join(path.dirname(ds.dest), 'media.csv.orig');
    await fs.copyFile(file, orig);
    execFileSync('touch', ['-r', file, orig]); // the exact mtime, nanoseconds included
    const text = await fs.readFile(file, 'utf8');
    // Other words of the same size, the mtime put back: read, the file would count every row as
    // unprobed (these synthetic bodies are no videos: each row says unreadable).
    expect(text).toContain(',unreadable,\n');
    await fs.writeFile(file, text.replaceAll(',unreadable,\n', ',unprobed,ok\n'));
    execFileSync('touch', ['-r', orig, file]);
    const kept = await sync(env.svc, ds.dest);
    expect(kept.summary.exitCode).toBe(0);
    expect([kept.summary.mediaProblems, kept.summary.mediaUnprobed]).toEqual([mediaProblems, mediaUnprobed]);
    await fs.copyFile(orig, file);
    execFileSync('touch', ['-r', orig, file]);

    // Counts in the state that are not whole numbers (a lying or hand-edited state) are not said: the file is counted.
    editHead(ds.dest, (head) => {
      const media = head.stageFiles!.media as { problems: number; unprobed: number };
      media.problems = 2.5;
      media.unprobed = 0.5;
    });
    const counted = await sync(env.svc, ds.dest);
    expect(counted.summary.exitCode).toBe(0);
    expect([counted.summary.mediaProblems, counted.summary.mediaUnprobed]).toEqual([mediaProblems, mediaUnprobed]);
  });

  // croissant.json names both tables' SHA-256. After an append each is the state recorded with the
  // table continued over the appended bytes (table-hash.ts), not a read of the whole table.
  const TABLES = ['manifest.csv', 'participants.csv'] as const;
  const tableHashes = async () => {
    const croissant = JSON.parse(await read('croissant.json')) as { distribution: Array<{ contentUrl: string; sha256: string }> };
    return TABLES.map((t) => croissant.distribution.find((fo) => fo.contentUrl === t)?.sha256);
  };
  const hashesOfFiles = () => Promise.all(TABLES.map(async (t) => createHash('sha256').update(await fs.readFile(path.join(ds.dest, t))).digest('hex')));
  /** What the states recorded in the head digest to (undefined: none, or one that does not load). */
  const recordedHashes = async () => {
    const recorded = (await research()) as { manifestHash?: string; participantsHash?: string };
    return Promise.all([recorded.manifestHash, recorded.participantsHash].map(async (s) => (s === undefined ? undefined : (await ResumableSha256.resume(s))?.finish().sha256)));
  };
  /** Adds `count` sets and syncs them in; the tables the folder read meanwhile, in the order read. */
  const appendReadingTables = async (count: number): Promise<string[]> => {
    const { svc, collectionId } = env;
    vi.mocked(participantsFile.writeParticipantsCsv).mockClear();
    const reads = vi.spyOn(LocalFolder.prototype, 'read');
    try {
      await svc.admin.addSets(collectionId, { count });
      const appended = await sync(svc, ds.dest);
      expect(appended.summary.exitCode).toBe(0);
      expect(appended.summary.filesDownloaded).toBe(count * 2);
      expect(participantsFile.writeParticipantsCsv).not.toHaveBeenCalled();
      return reads.mock.calls.map(([key]) => key).filter((key) => (TABLES as readonly string[]).includes(key));
    } finally {
      reads.mockRestore();
    }
  };

  it("continues the tables' hashes from the states recorded with them, reading neither table", async () => {
    expect((await sync(env.svc, ds.dest)).summary.exitCode).toBe(0);
    expect(await recordedHashes()).toEqual(await hashesOfFiles());
    expect(await appendReadingTables(2)).toEqual([]);
    expect(await tableHashes()).toEqual(await hashesOfFiles());
  });

  it('hashes a table whole when the state recorded with it does not load', async () => {
    editHead(ds.dest, (head) => {
      const research = head.research as unknown as Record<string, unknown>;
      research.manifestHash = Buffer.from('not a hash state').toString('base64'); // refused by hash-wasm's load
      research.participantsHash = 5; // not a string: dropped where the state is read
    });
    expect((await appendReadingTables(1)).sort()).toEqual([...TABLES]);
    expect(await tableHashes()).toEqual(await hashesOfFiles());
    // The states recorded after it continue the tables as they are now.
    expect(await recordedHashes()).toEqual(await hashesOfFiles());
  });
});

describe('the index files copied ahead, and their old versions kept until the next sync', () => {
  const env = useService({ sets: 3, fileSize: 1024, slots: 2 });
  const ds = useSyncedDataset(env, 'dsync-warm-copies-');
  const INDEX = ['manifest.csv', 'SHA256SUMS', 'participants.csv', 'media.csv', 'croissant.json'];
  const stateFolder = (name: string) => fs.readdir(path.join(ds.dest, '.dataset-sync', name));

  it('a sync that brings sets copies the five files during its disk check; a no-op copies none and removes the old versions', async () => {
    const warm = vi.spyOn(LocalFolder.prototype, 'warmExtensions');
    try {
      const before = await Promise.all(INDEX.map(async (name) => (await fs.lstat(path.join(ds.dest, name))).ino));
      // The first sync's sets are listed again by the next walk (the watermark's overlap): no copy.
      expect((await sync(env.svc, ds.dest)).summary.filesDownloaded).toBe(0);
      expect(warm).not.toHaveBeenCalled();
      await env.svc.admin.addSets(env.collectionId, { count: 2 });
      const appended = await sync(env.svc, ds.dest);
      expect(appended.summary.exitCode).toBe(0);
      expect(appended.summary.filesDownloaded).toBe(4);
      expect(warm.mock.calls).toEqual([[INDEX]]);
      expect(await stateFolder('tmp')).toEqual([]);
      // Each file was replaced, and its old version (the same inode) is held until the next sync.
      const kept = await stateFolder('replaced');
      const keptInodes = await Promise.all(kept.map(async (n) => (await fs.lstat(path.join(ds.dest, '.dataset-sync', 'replaced', n))).ino));
      expect(keptInodes.sort()).toEqual([...before].sort());
      warm.mockClear();
      expect((await sync(env.svc, ds.dest)).summary.filesDownloaded).toBe(0);
      expect(warm).not.toHaveBeenCalled();
      expect(await stateFolder('replaced')).toEqual([]);
      execFileSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: ds.dest });
    } finally {
      warm.mockRestore();
    }
  });
});

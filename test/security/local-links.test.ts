// Links and special files on the local disk (issue 15.4):
// - a consents folder given as (or defaulting to) a symbolic link is resolved once: records land
//   in the real target, whose mode is left alone, and the real path is what the sync reports;
//   a link whose real path is inside DEST is refused before anything is written;
// - `verify` reads only regular files: a listed file replaced by a link to /dev/zero, by a FIFO,
//   or reached through a linked set folder ends promptly as "changed" instead of hashing forever
//   or blocking on open.
import { spawnSync } from 'node:child_process';
import { promises as fs, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyFolder } from '../../src-main/sync/verify';
import { listFiles, mainCollection, parseNdjson, runCli, servedSets, sync, tempDir, useService } from '../engine/helpers';

const env = useService({ sets: 2, fileSize: 8 * 1024, slots: 2, seed: 154 });
let work: string;

beforeAll(async () => {
  // realpath: os.tmpdir() may itself be reached through a link (macOS /var -> /private/var).
  work = realpathSync(await tempDir('dsync-links-'));
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

async function consentIds(): Promise<number[]> {
  return (await servedSets(env.svc, env.collectionId)).flatMap((s) => s.consent_ids);
}

describe('a consents folder that is a symbolic link', () => {
  it('is resolved once: records land in the real folder, its mode untouched, its real path reported', async () => {
    const outer = path.join(work, 'linked');
    const dest = path.join(outer, 'ds');
    const real = path.join(outer, 'vault', 'consents');
    await fs.mkdir(real, { recursive: true });
    await fs.chmod(real, 0o750);
    await fs.symlink(real, `${dest}.consents`); // the default consents folder is a link
    const { summary, events } = await sync(env.svc, dest);
    expect(summary.exitCode, JSON.stringify(summary.failures)).toBe(0);

    const ids = await consentIds();
    expect(ids.length).toBeGreaterThan(0);
    expect((await listFiles(real)).sort()).toEqual(ids.map((id) => `${id}.json`).sort());
    expect((await fs.stat(real)).mode & 0o777).toBe(0o750); // the target's mode is the user's
    expect((await fs.lstat(`${dest}.consents`)).isSymbolicLink()).toBe(true); // the link is left as it was
    const start = events.find((e) => e.type === 'start');
    expect(start).toMatchObject({ consentsDir: real });
    expect(summary.consentsDir).toBe(real);
  });

  it('the CLI names the real folder, in its human output and in --json', async () => {
    const outer = path.join(work, 'cli');
    const dest = path.join(outer, 'ds');
    const real = path.join(outer, 'elsewhere');
    const link = path.join(outer, 'consents-link');
    await fs.mkdir(real, { recursive: true });
    await fs.symlink(real, link);
    const args = ['sync', '--base-url', env.svc.deliveryBaseUrl, '--collection', String(env.collectionId), '--dest', dest, '--consents-dir', link];
    const key = { DATASET_SYNC_API_KEY: mainCollection(env.svc).apiKey };
    const human = await runCli(args, { env: key });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toContain(`Consent records go to ${real}\n`);
    const json = await runCli([...args, '--json'], { env: key });
    expect(json.code, json.stderr).toBe(0);
    const events = parseNdjson(json.stdout);
    expect(events.find((e) => e.type === 'start')).toMatchObject({ consentsDir: real });
    expect(events.at(-1)).toMatchObject({ type: 'summary', summary: { consentsDir: real } });
  });

  it('a link to a folder not made yet: the target is created 0700 and used', async () => {
    const outer = path.join(work, 'dangling');
    const dest = path.join(outer, 'ds');
    const target = path.join(outer, 'later', 'consents');
    await fs.mkdir(outer, { recursive: true });
    await fs.symlink(target, `${dest}.consents`);
    const { summary } = await sync(env.svc, dest);
    expect(summary.exitCode, summary.fatal?.message).toBe(0);
    expect(summary.consentsDir).toBe(target);
    expect((await fs.stat(target)).mode & 0o777).toBe(0o700);
    expect((await listFiles(target)).length).toBe((await consentIds()).length);
  });

  it('a link into the dataset folder is refused (exit 2) before anything is written', async () => {
    const outer = path.join(work, 'inside');
    const dest = path.join(outer, 'ds');
    await fs.mkdir(path.join(dest, 'sets'), { recursive: true });
    await fs.symlink(path.join(dest, 'sets'), `${dest}.consents`);
    const { summary } = await sync(env.svc, dest);
    expect(summary.exitCode).toBe(2);
    expect(summary.fatal?.message).toMatch(/must not be inside the dataset folder/);
    expect(summary.fatal?.message).toContain(`really ${path.join(dest, 'sets')}`);
    expect(await listFiles(dest)).toEqual([]);
  });
});

describe('verify reads only regular files', () => {
  it('a link to /dev/zero, a FIFO and a linked set folder: verify ends promptly and reports each as changed', async () => {
    const dest = path.join(work, 'verify');
    const { summary } = await sync(env.svc, dest);
    expect(summary.exitCode).toBe(0);
    const sets = await servedSets(env.svc, env.collectionId);
    const [a, b] = sets;
    const zeroFile = `sets/${a!.id}/${a!.files[0]!.filename}`;
    const fifoFile = `sets/${a!.id}/${a!.files[1]!.filename}`;
    await fs.rm(path.join(dest, zeroFile));
    await fs.symlink('/dev/zero', path.join(dest, zeroFile));
    await fs.rm(path.join(dest, fifoFile));
    const made = spawnSync('mkfifo', [path.join(dest, fifoFile)]);
    expect(made.status, String(made.stderr)).toBe(0);
    // Set b's folder moved out and linked back: same bytes, but not inside DEST any more.
    const moved = path.join(work, 'moved-set');
    await fs.rename(path.join(dest, 'sets', String(b!.id)), moved);
    await fs.symlink(moved, path.join(dest, 'sets', String(b!.id)));

    const report = await verifyFolder(dest); // the old code hashed /dev/zero forever (or blocked opening the FIFO)
    const bFiles = b!.files.map((f) => `sets/${b!.id}/${f.filename}`);
    expect(report.changed.sort()).toEqual([zeroFile, fifoFile, ...bFiles].sort());
    expect(report.missing).toEqual([]);
    expect(report.ok).toBe(0);
    expect(report.extra).toEqual([`sets/${b!.id}`]);
    expect(report.bytesHashed).toBe(0);
  });

  it('a manifest.csv that is a link is refused with a clear error', async () => {
    const dest = path.join(work, 'verify-manifest');
    expect((await sync(env.svc, dest)).summary.exitCode).toBe(0);
    await fs.rm(path.join(dest, 'manifest.csv'));
    await fs.symlink('/dev/zero', path.join(dest, 'manifest.csv'));
    await expect(verifyFolder(dest)).rejects.toThrow(/manifest\.csv is a symbolic link, not a regular file/);
  });
});

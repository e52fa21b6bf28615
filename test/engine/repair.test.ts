// `verify --repair` end to end through the CLI (issue 12, docs/contracts.md §2): a deleted file and a file
// with one byte flipped (size and mtime kept, so a sync's stat check trusts it) are reported by
// verify, downloaded again by verify --repair, and SHA256SUMS verifies; an extra file is listed
// and kept.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainCollection, parseNdjson, runCli, sha256Of, sha256sumCheck, tempDir, useService } from './helpers';

const env = useService({ sets: 3, fileSize: 16 * 1024, slots: 2, seed: 1205 });
let work: string;

beforeAll(async () => {
  work = await tempDir('dsync-repair-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

const withKey = () => ({ DATASET_SYNC_API_KEY: mainCollection(env.svc).apiKey });

async function listed(dest: string): Promise<Array<{ sha256: string; rel: string }>> {
  return (await fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => ({ sha256: l.slice(0, 64), rel: l.slice(66) }));
}

/** Flips one byte in place and puts the mtime back: size and mtime are as recorded, the bytes are not. */
async function flipKeepingStat(file: string): Promise<void> {
  const st = await fs.stat(file);
  const h = await fs.open(file, 'r+');
  try {
    const b = Buffer.alloc(1);
    await h.read(b, 0, 1, 100);
    b[0] = b[0]! ^ 0xff;
    await h.write(b, 0, 1, 100);
  } finally {
    await h.close();
  }
  await fs.utimes(file, st.atime, st.mtime);
}

describe('verify --repair', () => {
  it('re-downloads a deleted and a silently changed file, keeps an extra file, and SHA256SUMS verifies', { timeout: 120_000 }, async () => {
    const { svc, collectionId } = env;
    const dest = path.join(work, 'ds');
    const sync = await runCli(['sync', '--base-url', svc.deliveryBaseUrl, '--collection', String(collectionId), '--dest', dest], { env: withKey() });
    expect(sync.code, sync.stderr).toBe(0);

    const files = await listed(dest);
    const deleted = files[0]!;
    const flipped = files[3]!;
    await fs.rm(path.join(dest, deleted.rel));
    await flipKeepingStat(path.join(dest, flipped.rel));
    const extra = `${path.dirname(flipped.rel)}/notes.txt`;
    await fs.writeFile(path.join(dest, extra), 'my notes\n');

    // A normal sync trusts size and mtime: the flipped file is still taken for verified.
    const before = await runCli(['verify', '--dest', dest, '--json']);
    expect(before.code).toBe(1);
    expect(JSON.parse(before.stdout)).toMatchObject({ missing: [deleted.rel], changed: [flipped.rel], extra: [extra] });

    // A set accepted since: a repair syncs exactly the damaged sets, not the feed.
    const [added] = await svc.admin.addSets(collectionId, { count: 1 });

    // The service and collection come from DEST's engine state.
    const repaired = await runCli(['verify', '--dest', dest, '--repair'], { env: withKey() });
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stdout).toContain(`missing  ${deleted.rel}`);
    expect(repaired.stdout).toContain(`changed  ${flipped.rel}`);
    expect(repaired.stdout).toContain(`extra    ${extra}`);
    expect(repaired.stdout).toMatch(/Repaired 2 of 2 files; 0 failed/);

    expect(sha256Of(path.join(dest, deleted.rel))).toBe(deleted.sha256);
    expect(sha256Of(path.join(dest, flipped.rel))).toBe(flipped.sha256);
    expect(await fs.readFile(path.join(dest, extra), 'utf8')).toBe('my notes\n');
    expect((await sha256sumCheck(dest)).code).toBe(0);
    expect(await listed(dest)).toEqual(files);
    await expect(fs.lstat(path.join(dest, 'sets', String(added!.id)))).rejects.toThrow();
    const after = await runCli(['verify', '--dest', dest, '--json']);
    expect(JSON.parse(after.stdout)).toMatchObject({ missing: [], changed: [], extra: [extra] });
  });

  it('--json prints the report, then the repair sync as NDJSON ending with its summary', { timeout: 120_000 }, async () => {
    const { svc, collectionId } = env;
    const dest = path.join(work, 'ds-json');
    expect((await runCli(['sync', '--base-url', svc.deliveryBaseUrl, '--collection', String(collectionId), '--dest', dest], { env: withKey() })).code).toBe(0);
    const victim = (await listed(dest))[1]!;
    await flipKeepingStat(path.join(dest, victim.rel));

    const r = await runCli(['verify', '--dest', dest, '--repair', '--json', '--base-url', svc.deliveryBaseUrl], { env: withKey() });
    expect(r.code, r.stderr).toBe(0);
    const [report, ...events] = r.stdout.trim().split('\n');
    expect(JSON.parse(report!)).toMatchObject({ changed: [victim.rel], missing: [] });
    const last = parseNdjson(events.join('\n')).at(-1);
    expect(last?.type === 'summary' && last.summary.filesDownloaded).toBe(1);
    expect(r.stdout).not.toContain(mainCollection(svc).apiKey);
    expect((await sha256sumCheck(dest)).code).toBe(0);
  });

  it('a folder never synced is a clear configuration error (exit 2)', async () => {
    const dest = path.join(work, 'never');
    await fs.mkdir(dest, { recursive: true });
    const r = await runCli(['verify', '--dest', dest, '--repair', '--base-url', env.svc.deliveryBaseUrl], { env: withKey() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/has not been synced yet/);
  });
});

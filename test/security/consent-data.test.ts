// Real names live only in the consents folder: no signer name anywhere under DEST (every file,
// engine state and history included); its files are 0600; the folder is 0700 when the sync
// creates it, and a folder that existed before keeps its mode (a warning says others can list it).
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listFiles, sync, tempDir, useService } from '../engine/helpers';

const env = useService({ sets: 4, fileSize: 8 * 1024, slots: 2, seed: 151 });
let work: string;

beforeAll(async () => {
  work = await tempDir('dsync-consent-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

it('no signer name under DEST; consents 0600 apart from the dataset', async () => {
  const { svc, collectionId } = env;
  const dest = path.join(work, 'ds');
  const consentsDir = `${dest}.consents`;
  // A consents folder that already exists with loose permissions keeps them: the sync changes
  // the mode only of a folder it created; it warns that others can list the record ids.
  await fs.mkdir(consentsDir, { mode: 0o755 });
  await fs.chmod(consentsDir, 0o755);
  await svc.admin.addSets(collectionId, { count: 1 }); // live-added sets carry consents too
  const { summary, events } = await sync(svc, dest);
  expect(summary.exitCode).toBe(0);

  const consentFiles = await listFiles(consentsDir);
  expect(consentFiles.length).toBeGreaterThan(0);
  const names = new Set<string>();
  expect((await fs.stat(consentsDir)).mode & 0o777).toBe(0o755);
  const warnings = events.flatMap((e) => (e.type === 'warning' ? [e.message] : []));
  expect(warnings.some((m) => m.includes(consentsDir) && /listed by other users \(mode 755\)/.test(m)), warnings.join(' | ')).toBe(true);
  for (const f of consentFiles) {
    expect(f).toMatch(/^[1-9]\d*\.json$/);
    const p = path.join(consentsDir, f);
    expect((await fs.stat(p)).mode & 0o777, f).toBe(0o600);
    const record = JSON.parse(await fs.readFile(p, 'utf8')) as { signer_name?: unknown };
    expect(typeof record.signer_name).toBe('string');
    names.add(record.signer_name as string);
  }
  expect(names.size).toBeGreaterThan(0);

  const datasetFiles = await listFiles(dest);
  expect(datasetFiles).toContain('.dataset-sync/state.db'); // records, head and history, scanned as bytes
  for (const f of datasetFiles) {
    const text = await fs.readFile(path.join(dest, f), 'utf8');
    expect(text.includes('signer_name'), f).toBe(false);
    for (const n of names) expect(text.includes(n), `${f} contains a signer name`).toBe(false);
    // JSON escapes non-ASCII names only if asked to; check the escaped form too.
    for (const n of names) expect(text.includes(JSON.stringify(n).slice(1, -1)), f).toBe(false);
  }
  // The consents folder is a sibling, never inside DEST.
  expect(path.relative(dest, consentsDir).startsWith('..')).toBe(true);
});

it('refuses a consents folder inside DEST (exit 2) before writing anything', async () => {
  const { svc } = env;
  const dest = path.join(work, 'inside');
  const { summary } = await sync(svc, dest, { consentsDir: path.join(dest, 'consents') });
  expect(summary.exitCode).toBe(2);
  expect(summary.fatal?.message).toMatch(/must not be inside the dataset folder/);
  expect(await listFiles(dest)).toEqual([]);
});

it('removes temp records left by a killed sync, never one of a sync still running', async () => {
  const { svc } = env;
  const dest = path.join(work, 'orphans');
  const consentsDir = `${dest}.consents`;
  await fs.mkdir(consentsDir, { recursive: true });
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!; // exited: its pid names no process now
  const orphan = path.join(consentsDir, `.777.json.${dead}-0123abcd.tmp`);
  const live = path.join(consentsDir, `.778.json.${process.pid}-89abcdef.tmp`);
  const foreign = path.join(consentsDir, 'notes.txt');
  for (const f of [orphan, live, foreign]) await fs.writeFile(f, '{"signer_name":"x"}', { mode: 0o600 });
  const { summary } = await sync(svc, dest);
  expect(summary.exitCode).toBe(0);
  const left = await fs.readdir(consentsDir);
  expect(left).not.toContain(path.basename(orphan));
  expect(left).toContain(path.basename(live));
  expect(left).toContain('notes.txt');
  expect(left.filter((f) => f.endsWith('.tmp'))).toEqual([path.basename(live)]);
});

// The API key never leaves memory except in the Authorization header: not in CLI output
// (human or --json, success or failure: 401, unreachable, failed files), not in anything under
// DEST (state, history, manifest) or the consents folder, not in engine events (what the sync
// controller batches to the renderer). `login` takes the key from stdin only.
// (IPC handler results, batched events and the settings file are scanned in test/app/handlers.test.ts.)
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedLoopbackPort } from '../support/closed-port';
import { runSync } from '../../src-main/sync/engine';
import { readHistory } from '../../src-main/sync/state/history';
import type { SyncEvent } from '../../src-shared/sync-events';
import { FAST_TUNING, listFiles, mainCollection, runCli, servedSets, tempDir, useService } from '../engine/helpers';

const env = useService({ sets: 3, fileSize: 8 * 1024, slots: 2, seed: 131 });
let work: string;
/** A secret-looking key the service does not know: it must not leak either. */
const wrongKey = `dsk_test_${randomBytes(16).toString('hex')}`;

beforeAll(async () => {
  work = await tempDir('dsync-secrets-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

async function unreachableUrl(): Promise<string> {
  return `http://127.0.0.1:${await closedLoopbackPort()}/api/v1/partner`;
}

/** Fails when any file below `dir` contains one of the secrets. */
async function expectNoSecretIn(dir: string, secrets: string[]): Promise<number> {
  const files = await listFiles(dir);
  for (const f of files) {
    const text = await fs.readFile(path.join(dir, f), 'latin1');
    for (const s of secrets) expect(text.includes(s), `${f} contains a key`).toBe(false);
  }
  return files.length;
}

const secretsOf = () => [mainCollection(env.svc).apiKey, wrongKey];

describe('CLI output', () => {
  const outputs: string[] = [];
  afterAll(() => {
    const all = outputs.join('\n');
    for (const s of secretsOf()) expect(all.includes(s)).toBe(false);
  });

  const syncArgs = (baseUrl: string, dest: string, ...extra: string[]) => ['sync', '--base-url', baseUrl, '--collection', String(env.collectionId), '--dest', dest, ...extra];

  it('success, a failed file, a 401 and an unreachable service: exit codes as documented, no key in stdout or stderr', async () => {
    const { svc } = env;
    const { apiKey, collectionId } = mainCollection(svc);
    const dest = path.join(work, 'cli-ds');
    const file = (await servedSets(svc, collectionId))[0]!.files[0]!;
    await svc.admin.addFault({ path: `^/files/${file.id}$` }, { type: 'status', status: 500 });
    const failed = await runCli(syncArgs(svc.deliveryBaseUrl, dest, '--json'), { env: { DATASET_SYNC_API_KEY: apiKey } });
    await svc.admin.clearFaults();
    expect(failed.code).toBe(1);
    const ok = await runCli(syncArgs(svc.deliveryBaseUrl, dest), { env: { DATASET_SYNC_API_KEY: apiKey } });
    expect(ok.code).toBe(0);
    const bad401 = await runCli(syncArgs(svc.deliveryBaseUrl, dest, '--json'), { env: { DATASET_SYNC_API_KEY: wrongKey } });
    expect(bad401.code).toBe(3);
    const bad401Human = await runCli(syncArgs(svc.deliveryBaseUrl, dest), { env: { DATASET_SYNC_API_KEY: wrongKey } });
    expect(bad401Human.code).toBe(3);
    const down = await unreachableUrl();
    const unreachable = await runCli(syncArgs(down, path.join(work, 'down-ds'), '--json'), { env: { DATASET_SYNC_API_KEY: apiKey } });
    expect(unreachable.code).toBe(4);
    const collections401 = await runCli(['collections', '--base-url', svc.deliveryBaseUrl, '--json'], { env: { DATASET_SYNC_API_KEY: wrongKey } });
    expect(collections401.code).toBe(3);
    const collectionsDown = await runCli(['collections', '--base-url', down], { env: { DATASET_SYNC_API_KEY: apiKey } });
    expect(collectionsDown.code).toBe(4);
    const collectionsOk = await runCli(['collections', '--base-url', svc.deliveryBaseUrl, '--json'], { env: { DATASET_SYNC_API_KEY: apiKey } });
    expect(collectionsOk.code).toBe(0);
    for (const r of [failed, ok, bad401, bad401Human, unreachable, collections401, collectionsDown, collectionsOk]) outputs.push(r.stdout, r.stderr);
    // The summaries did say something useful without the key.
    expect(bad401.stderr + bad401.stdout).toMatch(/401/);
    expect(unreachable.stderr + unreachable.stdout).toMatch(/connection refused|could not reach/);
  });

  it('login refuses a key given as a flag (exit 2) and reads it from stdin only', async () => {
    const { svc } = env;
    for (const flag of ['--key', '--api-key', '--apiKey', '--token']) {
      const r = await runCli(['login', '--base-url', svc.deliveryBaseUrl, flag, wrongKey], { input: '' });
      expect(r.code, flag).toBe(2);
      outputs.push(r.stdout, r.stderr);
    }
    const inline = await runCli(['login', '--base-url', svc.deliveryBaseUrl, `--key=${wrongKey}`], { input: '' });
    expect(inline.code).toBe(2);
    // A wrong key on stdin is checked with /me (401 -> exit 3) and never echoed.
    const stdin = await runCli(['login', '--base-url', svc.deliveryBaseUrl], { input: `${wrongKey}\n` });
    expect(stdin.code).toBe(3);
    outputs.push(inline.stdout, inline.stderr, stdin.stdout, stdin.stderr);
  });
});

describe('files and events', () => {
  it('nothing under DEST or the consents folder, and no engine event, carries the key, on success or a 401', async () => {
    const { svc } = env;
    const { apiKey, collectionId } = mainCollection(svc);
    const dest = path.join(work, 'engine-ds');
    const events: SyncEvent[] = [];
    const ok = await runSync({ baseUrl: svc.deliveryBaseUrl, apiKey, collectionId, dest, tuning: FAST_TUNING }, (e) => events.push(e));
    expect(ok.exitCode).toBe(0);
    const rejected = await runSync({ baseUrl: svc.deliveryBaseUrl, apiKey: wrongKey, collectionId, dest, tuning: FAST_TUNING }, (e) => events.push(e));
    expect(rejected.exitCode).toBe(3);
    expect(rejected.fatal?.message).toMatch(/rejected \(401\)/);
    const serialized = JSON.stringify(events);
    for (const s of secretsOf()) expect(serialized.includes(s)).toBe(false);
    // state.json, state.db (its WAL too), manifest, set.json files, consents: all scanned.
    expect(await expectNoSecretIn(dest, secretsOf())).toBeGreaterThan(5);
    expect(JSON.stringify(await readHistory(dest))).toMatch(/rejected \(401\)/);
    expect(await expectNoSecretIn(`${dest}.consents`, secretsOf())).toBeGreaterThan(0);
  });

  it('the CLI itself never writes the key anywhere in DEST either', async () => {
    const { svc } = env;
    const { apiKey, collectionId } = mainCollection(svc);
    const dest = path.join(work, 'cli-files-ds');
    const r = await runCli(['sync', '--base-url', svc.deliveryBaseUrl, '--collection', String(collectionId), '--dest', dest, '--json'], { env: { DATASET_SYNC_API_KEY: apiKey } });
    expect(r.code).toBe(0);
    await expectNoSecretIn(dest, secretsOf());
    await expectNoSecretIn(`${dest}.consents`, secretsOf());
  });
});

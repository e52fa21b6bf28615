// The CLI as users run it: `node bin/dataset-sync.mjs ...` as a child process against the
// in-process reference service. Exit codes per docs/contracts.md §2.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectDatasetMatches, mainCollection, parseNdjson, runCli, sha256sumCheck, tempDir, useService } from '../engine/helpers';
import { createKeychainStore } from '../../src-main/secrets/keychain';
import { accountEntry } from '../../src-main/secrets/secret-store';
import { needsSecretService, SECRET_SERVICE_MISSING } from '../support/secret-service';

// Real demo videos (no size asked for).
const env = useService({ sets: 4, slots: 2, seed: 31 });
let work: string;

beforeAll(async () => {
  work = await tempDir('dsync-cli-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

const withKey = (key = mainCollection(env.svc).apiKey) => ({ DATASET_SYNC_API_KEY: key });

function syncArgs(dest: string, ...extra: string[]): string[] {
  return ['sync', '--base-url', env.svc.deliveryBaseUrl, '--collection', String(env.collectionId), '--dest', dest, ...extra];
}

describe('dataset-sync sync', () => {
  it('syncs with --json: NDJSON events ending with the summary, exit 0', async () => {
    const { svc, collectionId } = env;
    const { apiKey } = mainCollection(svc);
    const dest = path.join(work, 'json-ds');
    const r = await runCli(syncArgs(dest, '--json', '--concurrency', '3'), { env: withKey() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const events = parseNdjson(r.stdout);
    const last = events.at(-1)!;
    expect(last.type).toBe('summary');
    if (last.type !== 'summary') throw new Error('unreachable');
    expect(last.summary.filesDownloaded).toBe(8);
    expect(last.summary.setsComplete).toBe(4);
    expect(events.some((e) => e.type === 'file' && e.state === 'verified')).toBe(true);
    expect(r.stdout).not.toContain(apiKey);
    expect(r.stdout).not.toContain('signer_name');
    await expectDatasetMatches(svc, dest, collectionId);
    expect((await sha256sumCheck(dest)).code).toBe(0);

    // verify via the CLI: clean, then a changed file -> exit 1 naming it
    const ok = await runCli(['verify', '--dest', dest]);
    expect(ok.code).toBe(0);
    const victim = (await fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8')).split('\n')[0]!.split('  ')[1]!;
    await fs.appendFile(path.join(dest, victim), 'tamper');
    const bad = await runCli(['verify', '--dest', dest, '--json']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ changed: [victim], missing: [], extra: [] });
    // In words, it says where the fix is.
    const said = await runCli(['verify', '--dest', dest]);
    expect(said.code).toBe(1);
    expect(said.stdout).toContain(`changed  ${victim}`);
    expect(said.stderr).toContain(`To download the missing and changed files again: dataset-sync verify --dest ${JSON.stringify(dest)} --repair`);
  });

  it('human output goes to stderr and names the outcome', async () => {
    const { apiKey } = mainCollection(env.svc);
    const dest = path.join(work, 'human-ds');
    const r = await runCli(syncArgs(dest), { env: withKey() });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Sync complete');
    expect(r.stderr).not.toContain(apiKey);
  });

  it('--full withdraws sets that left accepted; --exclude-gold skips gold sets', async () => {
    const { svc, collectionId } = env;
    const dest = path.join(work, 'full-ds');
    const gold = (await svc.admin.addSets(collectionId, { count: 1, is_gold: true }))[0]!;
    expect((await runCli(syncArgs(dest, '--exclude-gold', '--json'), { env: withKey() })).code).toBe(0);
    await expect(fs.access(path.join(dest, 'sets', String(gold.id)))).rejects.toThrow();
    const state = await svc.admin.state();
    const leaving = state.collections.find((c) => c.id === collectionId)!.accepted_set_ids[0]!;
    await svc.admin.setStatus(leaving, 'rejected');
    try {
      const r = await runCli(syncArgs(dest, '--full', '--json', '--exclude-gold'), { env: withKey() });
      expect(r.code).toBe(0);
      const summary = parseNdjson(r.stdout).at(-1)!;
      expect(summary.type === 'summary' && summary.summary.setsNotServed).toEqual([]);
      expect(summary.type === 'summary' && summary.summary.withdrawnSets).toBe(1);
      await fs.access(path.join(`${dest}.withdrawn`, String(leaving), 'set.json'));
    } finally {
      await svc.admin.setStatus(leaving, 'accepted');
    }
  });

  it('a wrong or revoked key exits 3', async () => {
    const { svc } = env;
    const r = await runCli(syncArgs(path.join(work, 'k-ds')), { env: withKey(svc.revokedKey) });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/401|rejected/);
    expect(r.stderr).not.toContain(svc.revokedKey);
    const wrong = await runCli(['collections', '--base-url', svc.deliveryBaseUrl], { env: withKey('dsk_wrong_key_123456') });
    expect(wrong.code).toBe(3);
  });

  it('an unreachable service exits 4 after (short) retries', async () => {
    const r = await runCli(['sync', '--base-url', 'http://127.0.0.1:9/api/v1/partner', '--collection', '1', '--dest', path.join(work, 'u-ds')], { env: withKey() });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('127.0.0.1:9');
  });

  it('plain http to a remote host is refused with exit 2', async () => {
    const r = await runCli(['sync', '--base-url', 'http://example.com/api/v1/partner', '--collection', '1', '--dest', path.join(work, 'x')], { env: withKey() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/https/);
  });

  it('usage errors exit 2 with usage on stderr', async () => {
    for (const args of [[], ['bogus'], ['sync', '--nope'], syncArgs(path.join(work, 'c'), '--concurrency', '17'), syncArgs(path.join(work, 'c'), '--concurrency', 'x'), ['sync', '--base-url', env.svc.deliveryBaseUrl, '--dest', 'd']]) {
      const r = await runCli(args, { env: withKey() });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('Usage: dataset-sync');
      // A command's mistake shows that command's usage, not every command's.
      if (args[0] === 'sync') {
        expect(r.stderr).toContain('Usage: dataset-sync sync --base-url URL');
        expect(r.stderr).toContain('dataset-sync sync --help for every option');
        expect(r.stderr).not.toContain('purge-withdrawn');
      }
    }
  });

  it('a DEST that cannot be created exits 2 with a clear message', async () => {
    const file = path.join(work, 'plain-file.txt');
    await fs.writeFile(file, 'not a folder');
    const r = await runCli(syncArgs(path.join(file, 'sub')), { env: withKey() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a folder|ENOTDIR/);
  });

  it('malformed JSON from the service: exit 4, clear message, earlier verified files untouched', async () => {
    const dest = path.join(work, 'mal-ds');
    expect((await runCli(syncArgs(dest), { env: withKey() })).code).toBe(0);
    const sums = await fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8');
    await env.svc.admin.addFault({ path: '/sets$' }, { type: 'body', status: 200, contentType: 'application/json', body: 'not json at all' }, 1);
    const r = await runCli(syncArgs(dest), { env: withKey() });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/not valid JSON/);
    expect(await fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8')).toBe(sums);
    expect((await sha256sumCheck(dest)).code).toBe(0);
  });

  it('a held lock is a clear error naming the pid', async () => {
    const dest = path.join(work, 'lock-ds');
    await fs.mkdir(path.join(dest, '.dataset-sync'), { recursive: true });
    await fs.writeFile(path.join(dest, '.dataset-sync', 'lock'), JSON.stringify({ pid: process.pid, host: (await import('node:os')).hostname(), startedAt: new Date().toISOString() }));
    const r = await runCli(syncArgs(dest), { env: withKey() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`pid ${process.pid}`);
  });
});

describe('dataset-sync collections', () => {
  it('--json lists the account collections', async () => {
    const { svc, collectionId } = env;
    const r = await runCli(['collections', '--base-url', svc.deliveryBaseUrl, '--json'], { env: withKey() });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { collections: Array<{ id: number }> };
    expect(out.collections.map((c) => c.id)).toContain(collectionId);
  });
});

describe('login and logout', () => {
  const realKeyring = SECRET_SERVICE_MISSING === null;

  it.skipIf(!realKeyring)(needsSecretService('login stores a key read from stdin; sync then works without the env var; logout removes it'), async () => {
    const base = env.svc.deliveryBaseUrl;
    const { apiKey } = mainCollection(env.svc);
    const login = await runCli(['login', '--base-url', base], { input: apiKey + '\n', env: { DATASET_SYNC_API_KEY: undefined } });
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).not.toContain(apiKey);
    expect(login.stdout).toMatch(/Logged in/);
    const list = await runCli(['collections', '--base-url', base, '--json'], { env: { DATASET_SYNC_API_KEY: undefined } });
    expect(list.code).toBe(0);
    const logout = await runCli(['logout', '--base-url', base], { env: { DATASET_SYNC_API_KEY: undefined } });
    expect(logout.code).toBe(0);
    const after = await runCli(['collections', '--base-url', base], { env: { DATASET_SYNC_API_KEY: undefined } });
    expect(after.code).toBe(2);
    expect(after.stderr).toMatch(/login|DATASET_SYNC_API_KEY/);
  });

  it.skipIf(!realKeyring)(needsSecretService("without login, the desktop app's key for the service is used when it holds one account there; two accounts are named, not guessed"), async () => {
    const base = env.svc.deliveryBaseUrl;
    const { apiKey } = mainCollection(env.svc);
    const keychain = createKeychainStore();
    const noEnv = { env: { DATASET_SYNC_API_KEY: undefined } };
    try {
      await keychain.set(base, apiKey, accountEntry(9001)); // as the app stores an account's key
      const one = await runCli(['collections', '--base-url', base, '--json'], noEnv);
      expect(one.stderr).toBe('');
      expect(one.code).toBe(0);
      await keychain.set(base, 'dsk_other_account_key_0000', accountEntry(9002));
      const two = await runCli(['collections', '--base-url', base], noEnv);
      expect(two.code).toBe(2);
      expect(two.stderr).toMatch(/2 accounts .*clients 9001, 9002/);
      expect(two.stderr).toContain('dataset-sync login');
      expect(two.stderr).not.toContain(apiKey);
    } finally {
      await keychain.delete(base, accountEntry(9001));
      await keychain.delete(base, accountEntry(9002));
    }
  });

  it('login with a wrong key exits 3 and stores nothing', async () => {
    const r = await runCli(['login', '--base-url', env.svc.deliveryBaseUrl], { input: 'dsk_not_a_key_000000\n', env: { DATASET_SYNC_API_KEY: undefined } });
    expect(r.code).toBe(3);
  });

  it.runIf(!realKeyring)('without a keychain, explains how to provide a key', async () => {
    const { svc } = env;
    const { apiKey } = mainCollection(svc);
    const r = await runCli(['collections', '--base-url', svc.deliveryBaseUrl], { env: { DATASET_SYNC_API_KEY: undefined, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/keychain is unavailable/);
    expect(r.stderr).toContain('DATASET_SYNC_API_KEY');
    const login = await runCli(['login', '--base-url', svc.deliveryBaseUrl], { input: apiKey, env: { DATASET_SYNC_API_KEY: undefined, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' } });
    expect(login.code).toBe(2);
    expect(login.stderr).toMatch(/could not be stored/);
    expect(login.stderr).not.toContain(apiKey);
  });
});

// The CLI's conventions (issue 23, point 9; docs/contracts.md §2): every command
// answers --help, the tool answers --version, every --json line has a `type`, a no-op re-sync
// says it is up to date, warnings follow the header, no bar is drawn under the summary, and
// `collections` prints a table with set counts. Real child processes against the reference service.
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyncDisplay } from '../../src-main/cli/sync-display';
import type { ProgressEvent, SyncSummary } from '../../src-shared/sync-events';
import { mainCollection, parseNdjson, runCli, tempDir, useService } from '../engine/helpers';

const env = useService({ sets: 3, fileSize: 8 * 1024, slots: 2, seed: 23 });
let work: string;

beforeAll(async () => {
  work = await tempDir('dsync-conventions-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

const withKey = () => ({ DATASET_SYNC_API_KEY: mainCollection(env.svc).apiKey });
const syncArgs = (dest: string, ...extra: string[]) => ['sync', '--base-url', env.svc.deliveryBaseUrl, '--collection', String(env.collectionId), '--dest', dest, ...extra];

describe('--help and --version', () => {
  it('every command answers --help with its own usage on stdout, exit 0', async () => {
    for (const command of ['sync', 'verify', 'collections', 'login', 'logout', 'demo']) {
      const r = await runCli([command, '--help'], { env: { DATASET_SYNC_API_KEY: undefined } });
      expect(r.code, command).toBe(0);
      expect(r.stderr, command).toBe('');
      expect(r.stdout, command).toMatch(new RegExp(`^Usage: dataset-sync ${command}\\b`));
    }
    const help = await runCli(['help', 'verify']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: dataset-sync verify --dest DIR/);
    // sync's help says its defaults and ranges.
    const sync = await runCli(['sync', '--help']);
    expect(sync.stdout).toContain('1 to 16, default 4');
    expect(sync.stdout).toContain('default off');
    expect(sync.stdout).toContain('defaults to DIR.consents');
  });

  it('dataset-sync --version prints the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync(path.resolve('package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = await runCli([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`dataset-sync ${version}\n`);
    }
  });
});

describe('sync and verify output', () => {
  it('a no-op re-sync says it is up to date in plain words, not as counts of work', async () => {
    const dest = path.join(work, 'noop');
    const first = await runCli(syncArgs(dest), { env: withKey() });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('Sync complete: every file verified.');
    const again = await runCli(syncArgs(dest), { env: withKey() });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('Up to date: nothing new since the last sync, nothing downloaded.');
    expect(again.stderr).toMatch(/6 files on disk checked/);
    expect(again.stderr).not.toMatch(/files downloaded|complete \d/);
  });

  it('warnings of a service that does not answer come after the "Syncing collection" header', async () => {
    await env.svc.admin.addFault({ path: '^/collections/\\d+$' }, { type: 'status', status: 503 }, 2);
    const r = await runCli(syncArgs(path.join(work, 'warn')), { env: withKey() });
    expect(r.code).toBe(0);
    const header = r.stderr.indexOf('Syncing collection');
    const warning = r.stderr.indexOf('warning:');
    expect(header).toBeGreaterThanOrEqual(0);
    expect(warning).toBeGreaterThan(header);
  });

  it('verify --json prints one object with a type, as sync does', async () => {
    const dest = path.join(work, 'noop');
    const r = await runCli(['verify', '--dest', dest, '--json']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ type: 'verify', filesChecked: 6, ok: 6, missing: [], changed: [], extra: [] });
    // And sync's lines all have one too.
    const s = await runCli(syncArgs(dest, '--json'), { env: withKey() });
    for (const e of parseNdjson(s.stdout)) expect(typeof e.type).toBe('string');
  });
});

describe('the live display on a terminal', () => {
  function terminal() {
    let text = '';
    const out = { isTTY: true, columns: 120, write: (s: string) => ((text += s), true) } as unknown as NodeJS.WriteStream;
    return { out, text: () => text };
  }
  const progress: ProgressEvent = {
    type: 'progress', phase: 'downloading', paused: false, setsDone: 3, setsTotal: 3, bytesDone: 6, bytesTotal: 6, filesDone: 6, filesTotal: 6,
    fraction: 1, bytesPerSecond: 0, etaSeconds: null, bytesRedownloaded: 0, active: [],
  };
  const summary = { collectionId: 1, dest: '/d', sets: 3, setsComplete: 3, setsFailed: 0, setsNotServed: [], withdrawnSets: 0, filesDownloaded: 6, filesUpToDate: 0, filesFailed: 0, bytesDownloaded: 6, bytesHashed: 6, requests: 9, failures: [], watermark: null, startedAt: '', finishedAt: '', durationMs: 10, exitCode: 0, cancelled: false } as SyncSummary;

  it('draws no progress bar under the summary, even for a progress event that comes after it', () => {
    const t = terminal();
    const display = new SyncDisplay(t.out, true);
    display.handle({ type: 'start', collectionId: 1, dest: '/d', full: false, watermark: null });
    display.handle(progress);
    display.handle({ type: 'summary', summary });
    display.handle(progress);
    const afterSummary = t.text().slice(t.text().lastIndexOf('Sync complete'));
    expect(afterSummary).not.toContain('[');
    expect(afterSummary.trimEnd().split('\n').at(-1)).toMatch(/^sets 3 \(complete 3/);
  });

  it('holds warnings that come before the header until it is printed; a sync that stops first still shows them', () => {
    const t = terminal();
    const display = new SyncDisplay(t.out, true);
    display.handle({ type: 'warning', message: 'the service answered 503; retry 1' });
    display.handle({ type: 'start', collectionId: 1, dest: '/d', full: false, watermark: null });
    expect(t.text().indexOf('Syncing collection')).toBeLessThan(t.text().indexOf('warning:'));

    const u = terminal();
    const stopped = new SyncDisplay(u.out, false);
    stopped.handle({ type: 'warning', message: 'connection refused; retry 1' });
    stopped.handle({ type: 'summary', summary: { ...summary, exitCode: 4, fatal: { kind: 'network', message: 'unreachable' } } });
    expect(u.text()).toMatch(/^warning: connection refused; retry 1\nSync stopped: unreachable/);
  });
});

describe('dataset-sync collections', () => {
  it('prints a header row and each collection\'s set counts by state', async () => {
    const r = await runCli(['collections', '--base-url', env.svc.deliveryBaseUrl], { env: withKey() });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^\s*ID\s+STATUS\s+ACCEPTED\s+IN REVIEW\s+IN PROGRESS\s+TITLE$/);
    const detail = (await env.svc.admin.state()).collections.find((c) => c.id === env.collectionId)!;
    const row = lines.find((l) => l.trimStart().startsWith(`${env.collectionId} `))!;
    expect(row.trim().split(/\s+/).slice(0, 3)).toEqual([String(env.collectionId), 'active', String(detail.accepted_set_ids.length)]);
    expect(r.stdout).toMatch(/Sizes are not part of the collection detail/);
  });

  it('--json: one object with type "collections", each with its set counts', async () => {
    const r = await runCli(['collections', '--base-url', env.svc.deliveryBaseUrl, '--json'], { env: withKey() });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { type: string; collections: Array<{ id: number; sets: { accepted: number } | null }> };
    expect(out.type).toBe('collections');
    expect(out.collections.find((c) => c.id === env.collectionId)?.sets?.accepted).toBe(3);
  });
});

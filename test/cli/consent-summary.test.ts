// The CLI says how many sets lack a signed consent instead of implying all is well: the closing
// line of a sync and of a no-op, and consentMissingSets in the --json summary (docs/contracts.md §2).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncSummary } from '../../src-shared/sync-events';
import { mainCollection, parseNdjson, runCli, tempDir, useService } from '../engine/helpers';
import { servedPage } from '../engine/pages';

// The demo's 24 accepted sets: every fifth has a participant B without a consent.
const env = useService({ sets: 24, fileSize: 1024, slots: 2 });
let work: string;

beforeAll(async () => {
  work = await tempDir('dsync-consent-cli-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

const withKey = () => ({ DATASET_SYNC_API_KEY: mainCollection(env.svc).apiKey });
const syncArgs = (dest: string, ...extra: string[]) => ['sync', '--base-url', env.svc.deliveryBaseUrl, '--collection', String(env.collectionId), '--dest', dest, ...extra];

async function lackingConsent(): Promise<number> {
  const sets = (await servedPage(env.svc)).sets as unknown as Array<{ participants: Array<{ consent: unknown }> }>;
  return sets.filter((s) => s.participants.some((p) => p.consent === null)).length;
}

describe('sets without a signed consent, in the CLI', () => {
  it('the closing line and the no-op line say how many; --json carries consentMissingSets', async () => {
    const n = await lackingConsent();
    expect(n).toBe(4);
    const dest = path.join(work, 'human');
    const first = await runCli(syncArgs(dest), { env: withKey() });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`Sync complete: every file verified, but ${n} sets have a participant without a signed consent (participants.csv: consent "missing").`);
    expect(first.stderr).not.toContain('Sync complete: every file verified.');

    const again = await runCli(syncArgs(dest), { env: withKey() });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('Up to date: nothing new since the last sync, nothing downloaded.');
    expect(again.stderr).toContain(`${n} sets have a participant without a signed consent`);

    const json = await runCli(syncArgs(path.join(work, 'json'), '--json'), { env: withKey() });
    expect(json.code).toBe(0);
    const events = parseNdjson(json.stdout);
    const last = events.at(-1) as { type: string; summary?: SyncSummary };
    expect(last.type).toBe('summary');
    expect(last.summary?.consentMissingSets).toBe(n);
  });
});

// Nothing the service says and nothing planted inside DEST can make a sync write outside DEST
// (or the consents folder): hostile ids in otherwise well-formed answers, and symbolic links
// planted in place of set folders, the engine's state folders, part files, final files and
// the history file.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectDatasetMatches, listFiles, mainCollection, servedSets, sha256sumCheck, sync, tempDir, useService } from '../engine/helpers';
import { sha256File } from '../chaos/support';

const env = useService({ sets: 3, fileSize: 16 * 1024, slots: 2, seed: 61 });

/** An outer temp folder holding DEST ("ds"), its consents sibling and a bystander folder "elsewhere". */
async function layout() {
  const outer = await tempDir('dsync-paths-');
  const dest = path.join(outer, 'ds');
  const elsewhere = path.join(outer, 'elsewhere');
  await fs.mkdir(elsewhere);
  await fs.writeFile(path.join(elsewhere, 'bystander.txt'), 'keep me\n');
  return { outer, dest, elsewhere, done: () => fs.rm(outer, { recursive: true, force: true }) };
}

async function expectOnlyBystander(elsewhere: string): Promise<void> {
  expect(await listFiles(elsewhere)).toEqual(['bystander.txt']);
  expect(await fs.readFile(path.join(elsewhere, 'bystander.txt'), 'utf8')).toBe('keep me\n');
}

async function getJson(rel: string): Promise<Record<string, unknown>> {
  const { svc } = env;
  const { apiKey } = mainCollection(svc);
  const res = await fetch(`${svc.deliveryBaseUrl}${rel}`, { headers: { authorization: `Bearer ${apiKey}` } });
  return (await res.json()) as Record<string, unknown>;
}

/** The first sets page as served now, for editing into a hostile answer. */
async function servedPage(): Promise<{ sets: Array<Record<string, unknown>> } & Record<string, unknown>> {
  return (await getJson(`/collections/${env.collectionId}/sets?status=accepted&page=1&per_page=200`)) as { sets: Array<Record<string, unknown>> };
}

async function serveOnce(pathRe: string, body: unknown): Promise<void> {
  await env.svc.admin.addFault({ path: pathRe }, { type: 'body', status: 200, contentType: 'application/json', body: JSON.stringify(body) }, 1);
}

describe('hostile ids in answers never become paths', () => {
  it('set ids "../../x", negative and huge: refused, nothing written outside DEST', async () => {
    const { svc } = env;
    const l = await layout();
    try {
      for (const id of ['../../x', -7, 1e20, 0]) {
        const page = await servedPage();
        page.sets[0]!.id = id;
        await serveOnce('/sets$', page);
        const { summary } = await sync(svc, l.dest);
        expect(summary.exitCode, `set id ${String(id)}`).not.toBe(0);
        const reasons = [summary.fatal?.message ?? '', ...summary.failures.map((f) => f.reason)].join(' | ');
        expect(reasons, `set id ${String(id)}`).toMatch(/sets\[0\]\.id|set id .* not a positive integer/);
      }
      const sets = await fs.readdir(path.join(l.dest, 'sets')).catch(() => [] as string[]);
      for (const s of sets) expect(s).toMatch(/^[1-9]\d*$/);
      const all = await listFiles(l.outer);
      for (const f of all) expect(f.startsWith('ds/') || f.startsWith('ds.consents/') || f === 'elsewhere/bystander.txt', f).toBe(true);
      await expectOnlyBystander(l.elsewhere);
    } finally {
      await l.done();
    }
  });

  it('consent ids "../../x", negative and zero in a set: refused, no file outside the consents folder', async () => {
    const { svc } = env;
    const l = await layout();
    try {
      const page = await servedPage();
      const participants = page.sets[0]!.participants as Array<{ consent: Record<string, unknown> | null }>;
      participants[0]!.consent!.id = -3;
      if (participants[1]?.consent) participants[1].consent.id = 0;
      await serveOnce('/sets$', page);
      const first = await sync(svc, l.dest);
      expect(first.summary.exitCode).toBe(1);
      expect(first.summary.setsFailed).toBe(1);

      const page2 = await servedPage();
      (page2.sets[0]!.participants as Array<{ consent: Record<string, unknown> }>)[0]!.consent.id = '../../x';
      await serveOnce('/sets$', page2);
      const second = await sync(svc, l.dest);
      // A malformed record fails its own set (issue 12), never the whole sync, and never becomes a path.
      expect(second.summary.exitCode).toBe(1);
      expect(second.summary.fatal).toBeUndefined();
      expect(second.summary.failures.map((f) => f.reason).join(' | ')).toMatch(/participants\[0\]\.consent\.id: Invalid input: expected number, received string/);

      const consentsDir = `${l.dest}.consents`;
      for (const f of await fs.readdir(consentsDir)) expect(f).toMatch(/^[1-9]\d*\.json$/);
      await expectOnlyBystander(l.elsewhere);
    } finally {
      await l.done();
    }
  });
});

describe('symbolic links planted inside DEST are not followed out of it', () => {
  it('sets/<id> linked to another folder: that folder stays untouched and the sync says why', async () => {
    const { svc, collectionId } = env;
    const l = await layout();
    try {
      const id = (await servedSets(svc, collectionId))[0]!.id;
      await fs.mkdir(path.join(l.dest, 'sets'), { recursive: true });
      await fs.symlink(l.elsewhere, path.join(l.dest, 'sets', String(id)));
      const { summary } = await sync(svc, l.dest);
      expect(summary.exitCode).not.toBe(0);
      const reasons = [summary.fatal?.message ?? '', ...summary.failures.map((f) => f.reason)].join(' | ');
      expect(reasons).toMatch(/symbolic link/);
      await expectOnlyBystander(l.elsewhere);
      // Removing the link lets the next sync complete.
      await fs.unlink(path.join(l.dest, 'sets', String(id)));
      expect((await sync(svc, l.dest)).summary.exitCode).toBe(0);
      await expectDatasetMatches(svc, l.dest, collectionId);
      await expectOnlyBystander(l.elsewhere);
    } finally {
      await l.done();
    }
  });

  it('.dataset-sync or .dataset-sync/partial linked elsewhere: refused with exit 2, nothing written there', async () => {
    const { svc } = env;
    for (const rel of ['.dataset-sync', '.dataset-sync/partial']) {
      const l = await layout();
      try {
        await fs.mkdir(path.dirname(path.join(l.dest, rel)), { recursive: true });
        await fs.symlink(l.elsewhere, path.join(l.dest, rel));
        const { summary } = await sync(svc, l.dest);
        expect(summary.exitCode, rel).toBe(2);
        expect(summary.fatal?.message, rel).toMatch(/symbolic link/);
        await expectOnlyBystander(l.elsewhere);
        expect(await listFiles(path.join(l.dest, 'sets'))).toEqual([]);
      } finally {
        await l.done();
      }
    }
  });

  it('state.db (or its WAL) linked elsewhere: the sync stops naming it, the target is never written', async () => {
    const { svc } = env;
    for (const name of ['state.db', 'state.db-wal']) {
      const l = await layout();
      try {
        await fs.mkdir(path.join(l.dest, '.dataset-sync'), { recursive: true });
        await fs.symlink(path.join(l.elsewhere, 'bystander.txt'), path.join(l.dest, '.dataset-sync', name));
        const { summary } = await sync(svc, l.dest);
        expect(summary.exitCode, name).not.toBe(0);
        expect(summary.fatal?.message, name).toMatch(/symbolic link/);
        await expectOnlyBystander(l.elsewhere);
      } finally {
        await l.done();
      }
    }
  });

  it('a planted part file, final file and history file linked outside: the targets are never written', async () => {
    const { svc, collectionId } = env;
    const l = await layout();
    try {
      const set = (await servedSets(svc, collectionId))[0]!;
      const [f1, f2] = set.files;
      await fs.mkdir(path.join(l.dest, '.dataset-sync', 'partial'), { recursive: true });
      await fs.mkdir(path.join(l.dest, 'sets', String(set.id)), { recursive: true });
      await fs.symlink(path.join(l.elsewhere, 'bystander.txt'), path.join(l.dest, '.dataset-sync', 'partial', `${f1!.id}-${f1!.sha256}.part`));
      await fs.symlink(path.join(l.elsewhere, 'bystander.txt'), path.join(l.dest, 'sets', String(set.id), f2!.filename));
      await fs.symlink(path.join(l.elsewhere, 'bystander.txt'), path.join(l.dest, '.dataset-sync', 'history.jsonl'));
      const { summary } = await sync(svc, l.dest);
      expect(summary.exitCode).toBe(0);
      await expectOnlyBystander(l.elsewhere);
      for (const f of [f1!, f2!]) {
        const p = path.join(l.dest, 'sets', String(set.id), f.filename);
        expect((await fs.lstat(p)).isFile()).toBe(true);
        expect(await sha256File(p)).toBe(f.sha256);
      }
      await expectDatasetMatches(svc, l.dest, collectionId);
      expect((await sha256sumCheck(l.dest)).code).toBe(0);
    } finally {
      await l.done();
    }
  });

  it('hostile file names from an admin edit stay inside DEST (covered for many names in test/engine/hostile-names)', async () => {
    const { svc, collectionId } = env;
    const l = await layout();
    try {
      const set = (await servedSets(svc, collectionId))[1]!;
      const hostile = path.relative(path.join(l.dest, 'sets', String(set.id)), path.join(l.elsewhere, 'pwned.mp4'));
      await svc.admin.editSet(set.id, { slot_index: 1, filename: hostile });
      const { summary } = await sync(svc, l.dest);
      expect(summary.exitCode).toBe(1);
      expect(summary.failures.map((f) => f.reason).join(' ')).toMatch(/file name/);
      await expectOnlyBystander(l.elsewhere);
    } finally {
      await l.done();
    }
  });
});

// A page of the sets in a dataset folder, filtered, for the Sets tab's "In the dataset" view.
// This is the one function that reads them (listDatasetSets): today from the folder itself —
// manifest.csv for the verified files, sets/<id>/set.json (pseudonymous, written by the engine)
// for participants and flags, media.csv for the media check when it is there — re-read only
// when manifest.csv changes. When the engine offers a page-of-sets query, only this changes.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { DatasetSetSchema, type DatasetSet, type DatasetSetRow, type DatasetSetsPage, type DatasetSetsQuery, type FileMediaCheck } from '../../../src-shared/dataset-sets';
import { parseCsv, parseManifest } from '../../sync/dataset';

interface Snapshot {
  stamp: string;
  rows: DatasetSetRow[];
}

const snapshots = new Map<string, Snapshot>();

async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as unknown;
  } catch {
    return null;
  }
}

/** media.csv (docs/contracts.md §1) by path: null when there is none yet (no media check has run). */
async function readMediaChecks(dest: string): Promise<Map<string, FileMediaCheck> | null> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dest, 'media.csv'), 'utf8');
  } catch {
    return null;
  }
  const rows = parseCsv(text);
  const header = rows.shift() ?? [];
  const [iPath, iRules, iListing] = ['path', 'rules', 'listing'].map((c) => header.indexOf(c));
  if (iPath === undefined || iPath < 0 || iRules === undefined || iRules < 0 || iListing === undefined || iListing < 0) return null;
  const byPath = new Map<string, FileMediaCheck>();
  for (const r of rows) {
    const rules = r[iRules] ?? '';
    const listing = r[iListing] ?? '';
    const problems = [...(rules && rules !== 'ok' ? rules.split(';') : []), ...(listing && listing !== 'ok' ? listing.split(';').map((f) => `listing:${f}`) : [])];
    byPath.set(r[iPath] ?? '', { ok: problems.length === 0, problems });
  }
  return byPath;
}

async function snapshot(dest: string): Promise<DatasetSetRow[]> {
  const [manifestInfo, mediaInfo] = await Promise.all([fs.stat(path.join(dest, 'manifest.csv')).catch(() => null), fs.stat(path.join(dest, 'media.csv')).catch(() => null)]);
  if (!manifestInfo) return [];
  const stamp = `${manifestInfo.size}:${manifestInfo.mtimeMs}:${mediaInfo?.mtimeMs ?? '-'}`;
  const known = snapshots.get(dest);
  if (known?.stamp === stamp) return known.rows;

  let listed: Array<{ path: string }>;
  try {
    listed = parseManifest(await fs.readFile(path.join(dest, 'manifest.csv'), 'utf8'));
  } catch {
    return [];
  }
  const verified = new Map<number, Set<string>>();
  for (const { path: rel } of listed) {
    const m = /^sets\/(\d+)\/([^/]+)$/.exec(rel);
    if (!m) continue;
    const id = Number(m[1]);
    let names = verified.get(id);
    if (!names) verified.set(id, (names = new Set()));
    names.add(m[2]!);
  }
  const media = await readMediaChecks(dest);
  const rows: DatasetSetRow[] = [];
  for (const id of [...verified.keys()].sort((a, b) => a - b)) {
    const parsed = DatasetSetSchema.safeParse(await readJson(path.join(dest, 'sets', String(id), 'set.json')));
    if (!parsed.success || parsed.data.id !== id) continue; // a set.json edited by hand: its files stay in the manifest views
    const set: DatasetSet = parsed.data;
    const names = verified.get(id)!;
    const mediaOf: Record<string, FileMediaCheck> = {};
    for (const f of set.files) {
      const check = media?.get(`sets/${id}/${f.filename}`);
      if (check) mediaOf[f.filename] = check;
    }
    rows.push({ set, verifiedFiles: set.files.map((f) => f.filename).filter((n) => names.has(n)), ...(media ? { media: mediaOf } : {}) });
  }
  snapshots.set(dest, { stamp, rows });
  return rows;
}

/** The media filter's word on a set: undefined when no media check has run (the filter then keeps nothing but says so). */
function mediaState(row: DatasetSetRow): 'ok' | 'problems' | undefined {
  if (!row.media) return undefined;
  return Object.values(row.media).some((c) => !c.ok) ? 'problems' : 'ok';
}

export function matchesQuery(row: DatasetSetRow, q: Omit<DatasetSetsQuery, 'page' | 'perPage'>): boolean {
  const { set } = row;
  if (q.setId && !String(set.id).includes(q.setId)) return false;
  if (q.gold === 'gold' && !set.is_gold) return false;
  if (q.gold === 'not_gold' && set.is_gold) return false;
  if (q.quotaGroup && !set.participants.some((p) => p.quota_group.value === q.quotaGroup)) return false;
  const missing = set.participants.some((p) => p.consent === null);
  if (q.consent === 'missing' && !missing) return false;
  if (q.consent === 'signed' && missing) return false;
  if (q.media && mediaState(row) !== q.media) return false;
  return true;
}

/** A page of the dataset's sets matching the query, with the choices the filters offer. */
export async function listDatasetSets(dest: string, query: DatasetSetsQuery): Promise<DatasetSetsPage> {
  const rows = await snapshot(dest);
  const matching = rows.filter((r) => matchesQuery(r, query));
  const groups = new Map<string, string>();
  for (const r of rows) for (const p of r.set.participants) groups.set(p.quota_group.value, p.quota_group.label);
  const start = (query.page - 1) * query.perPage;
  return {
    rows: matching.slice(start, start + query.perPage),
    page: query.page,
    perPage: query.perPage,
    total: matching.length,
    setsInDataset: rows.length,
    quotaGroups: [...groups].map(([value, label]) => ({ value, label })).sort((a, b) => a.label.localeCompare(b.label)),
    mediaChecked: rows.some((r) => r.media !== undefined),
  };
}

/** Whether set `id` is in the dataset (has verified files and its set.json). */
export async function hasDatasetSet(dest: string, id: number): Promise<boolean> {
  return (await snapshot(dest)).some((r) => r.set.id === id);
}

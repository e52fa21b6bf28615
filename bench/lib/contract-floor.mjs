// A peer for scenario 9 (issue #21): the least a Node client must do to make what the dataset
// contract (docs/contracts.md) asks of a first sync, written as plainly as we can: one thread, one
// undici Pool with as many requests in flight as our engine keeps, synchronous file-system calls
// (as node-floor.mjs, which writes the bodies in place and nothing else). Per page of the feed:
// per set a folder and set.json (temp file in DEST/.dataset-sync/tmp, rename); per file the GET,
// its size and SHA-256 checked, a temp file renamed into the set folder, a state row in SQLite
// (better-sqlite3, in transactions of 512 rows); per consent the GET, JSON.parse, its id checked
// and the record written 0600 (temp file and rename) in the consents folder beside DEST; at the
// end manifest.csv and SHA256SUMS rendered from the state rows, each by temp file and rename.
// Left out, as not the contract's: schema checks and redaction of the answers, retries and
// resume, progress and events, the lock and the disk check, the research files (participants.csv,
// media.csv, croissant.json), the check of the folders against links. So its time is a floor for
// a client that keeps the contract, and our first sync's distance from it is what the engine's
// robustness and reporting cost (bench/NOTES.md, "The contract's floor").
// usage: DATASET_SYNC_API_KEY=... node contract-floor.mjs IN_FLIGHT BASE_URL COLLECTION_ID DEST
import { closeSync, fstatSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { Pool } from 'undici';

const [inFlightArg, baseArg, collection, dest] = process.argv.slice(2);
const inFlight = Number(inFlightArg);
const key = process.env.DATASET_SYNC_API_KEY;
if (!Number.isInteger(inFlight) || inFlight < 1 || !baseArg || !/^\d+$/.test(collection ?? '') || !dest || !key) {
  console.error('usage: DATASET_SYNC_API_KEY=... node contract-floor.mjs IN_FLIGHT BASE_URL COLLECTION_ID DEST');
  process.exit(2);
}
const base = new URL(baseArg);
const basePath = base.pathname.replace(/\/$/, '');
const pool = new Pool(base.origin, { connections: inFlight });
const headers = { authorization: `Bearer ${key}`, accept: 'application/json' };
/** Server-given names become paths only when they are plain names. */
const PLAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

const consents = `${dest}.consents`;
const tmp = `${dest}/.dataset-sync/tmp`;
mkdirSync(tmp, { recursive: true });
mkdirSync(`${dest}/sets`, { recursive: true });
mkdirSync(consents, { recursive: true, mode: 0o700 });
let tmpCount = 0;

const db = new Database(`${dest}/.dataset-sync/state.db`);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(
  'CREATE TABLE files (set_id INTEGER, file_id INTEGER PRIMARY KEY, slot_index INTEGER, slot_key TEXT, path TEXT, size INTEGER, sha256 TEXT, refs TEXT, accepted_at TEXT, updated_at TEXT, downloaded_at TEXT) STRICT',
);
const insert = db.prepare('INSERT INTO files VALUES (?,?,?,?,?,?,?,?,?,?,?)');
const insertAll = db.transaction((rows) => {
  for (const row of rows) insert.run(row);
});
let rows = [];

function writeAtomic(target, data, mode, tmpDir) {
  const temp = `${tmpDir}/.floor-${process.pid}-${tmpCount++}`;
  const fd = openSync(temp, 'wx', mode);
  try {
    writeSync(fd, data);
    fstatSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, target);
}

async function get(url) {
  const u = new URL(url, base);
  if (u.origin !== base.origin) throw new Error(`${url}: not on ${base.origin}`);
  const res = await pool.request({ method: 'GET', path: u.pathname + u.search, headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== 200) throw new Error(`GET ${u.pathname}: HTTP ${res.statusCode}`);
  return body;
}

async function fetchFile(set, file, folder, refs) {
  if (!PLAIN_NAME.test(file.filename)) throw new Error(`file ${file.id}: name ${JSON.stringify(file.filename)}`);
  const body = await get(file.url);
  if (body.length !== file.size_bytes || createHash('sha256').update(body).digest('hex') !== file.sha256) throw new Error(`file ${file.id}: size or SHA-256 mismatch`);
  writeAtomic(`${folder}/${file.filename}`, body, 0o644, tmp);
  rows.push([set.id, file.id, file.slot_index, file.slot_key, `sets/${set.id}/${file.filename}`, file.size_bytes, file.sha256, refs, set.accepted_at, set.updated_at, new Date().toISOString()]);
  if (rows.length >= 512) {
    insertAll(rows);
    rows = [];
  }
}

async function fetchConsent(ref) {
  if (!Number.isInteger(ref.id)) throw new Error(`a consent whose id ${JSON.stringify(ref.id)} is not an integer`);
  const answer = JSON.parse((await get(ref.url)).toString('utf8'));
  if (answer?.consent?.id !== ref.id) throw new Error(`consent ${ref.id}: another record came back`);
  writeAtomic(`${consents}/${ref.id}.json`, `${JSON.stringify(answer.consent, null, 2)}\n`, 0o600, consents);
}

// The walk feeds a queue that IN_FLIGHT workers drain; it waits while the queue is long. Idle
// workers wait for the walk's next page (announce).
const queue = [];
let walked = false;
let arrived;
let moreArrived = new Promise((r) => (arrived = r));
function announce() {
  const wake = arrived;
  moreArrived = new Promise((r) => (arrived = r));
  wake();
}
async function worker() {
  for (;;) {
    const job = queue.shift();
    if (job !== undefined) await job();
    else if (walked) return;
    else await moreArrived;
  }
}
const workers = Array.from({ length: inFlight }, worker);
// Rejects with the first job that failed: the walk stops waiting on the queue then.
const workersDone = Promise.all(workers);

for (let page = 1; ; page++) {
  while (queue.length > 8 * inFlight) await Promise.race([workersDone, new Promise((r) => setTimeout(r, 2))]);
  const answer = JSON.parse((await get(`${basePath}/collections/${collection}/sets?status=accepted&page=${page}&per_page=200`)).toString('utf8'));
  for (const set of answer.sets) {
    if (!Number.isInteger(set.id)) throw new Error('a set without an integer id');
    const folder = `${dest}/sets/${set.id}`;
    mkdirSync(folder);
    const { files, ...meta } = set;
    writeAtomic(`${folder}/set.json`, `${JSON.stringify({ ...meta, files: files.map(({ url: _url, ...f }) => f) }, null, 2)}\n`, 0o644, tmp);
    const refs = set.participants.map((p) => p.participant_ref).join(';');
    for (const file of files) queue.push(() => fetchFile(set, file, folder, refs));
    for (const p of set.participants) if (p.consent) queue.push(() => fetchConsent(p.consent));
  }
  announce();
  if (!answer.has_more) break;
}
walked = true;
announce();
await workersDone;
if (rows.length > 0) insertAll(rows);

const cell = (s) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
const csv = ['set_id,slot_index,slot_key,path,size_bytes,sha256,participant_refs,accepted_at,updated_at,downloaded_at\n'];
const sums = [];
for (const r of db.prepare('SELECT * FROM files ORDER BY set_id, slot_index').raw().iterate()) {
  csv.push(`${r[0]},${r[2]},${cell(r[3])},${cell(r[4])},${r[5]},${r[6]},${cell(r[7])},${r[8]},${r[9]},${r[10]}\n`);
  sums.push(`${r[6]}  ${r[4]}\n`);
}
writeAtomic(`${dest}/manifest.csv`, csv.join(''), 0o644, tmp);
writeAtomic(`${dest}/SHA256SUMS`, sums.join(''), 0o644, tmp);
db.close();
await pool.close();

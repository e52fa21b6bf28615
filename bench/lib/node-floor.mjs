// A peer for scenario 9 (issue #21): the least a Node client must do to fetch what the spec's
// procedure fetches. It reads the curl configs the scenario wrote (the files and the consents)
// and GETs every URL through one undici Pool, as many requests in flight as our engine keeps for
// small files (transfers plus consents), writing each body in place with a synchronous write:
// no verification, no temp file and rename, no folder checks, no state, no events, no set.json.
// So its time is what the runtime, the HTTP client and the file system cost on this machine, and
// our first sync's distance from it is what the engine itself adds.
// Synchronous writes on purpose: a promise write per file (the thread pool) made this same client
// 1.6x slower on 2 cores, its wake-ups costing more than the writes (bench/NOTES.md).
// usage: node node-floor.mjs IN_FLIGHT CONFIG...
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Pool } from 'undici';

const [inFlightArg, ...configs] = process.argv.slice(2);
const inFlight = Number(inFlightArg);
if (!Number.isInteger(inFlight) || inFlight < 1 || configs.length === 0) {
  console.error('usage: node node-floor.mjs IN_FLIGHT CONFIG...');
  process.exit(2);
}

/** The url/output pairs and the Authorization header of curl configs (the lines scale.ts writes). */
function readConfigs(files) {
  const jobs = [];
  let authorization;
  for (const file of files) {
    let url;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.startsWith('header = ')) authorization = JSON.parse(line.slice(9)).replace(/^Authorization: /, '');
      else if (line.startsWith('url = ')) url = JSON.parse(line.slice(6));
      else if (line.startsWith('output = ')) jobs.push({ url: new URL(url), output: JSON.parse(line.slice(9)) });
    }
  }
  return { jobs, authorization };
}

const { jobs, authorization } = readConfigs(configs);
if (jobs.length === 0) process.exit(0);
const pool = new Pool(jobs[0].url.origin, { connections: inFlight });
const madeFolders = new Set();
let next = 0;

async function worker() {
  while (next < jobs.length) {
    const { url, output } = jobs[next++];
    const res = await pool.request({ method: 'GET', path: url.pathname + url.search, headers: { authorization } });
    const body = Buffer.from(await res.body.arrayBuffer());
    if (res.statusCode !== 200) throw new Error(`GET ${url.href}: HTTP ${res.statusCode}`);
    const folder = path.dirname(output);
    if (!madeFolders.has(folder)) {
      mkdirSync(folder, { recursive: true });
      madeFolders.add(folder);
    }
    writeFileSync(output, body);
  }
}

await Promise.all(Array.from({ length: inFlight }, worker));
await pool.close();

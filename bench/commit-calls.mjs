// The file-system calls that commit small files, timed without the network (bench/NOTES.md,
// "Where a first sync's CPU goes"). A first sync of 1 KiB files spends about a third of its CPU in
// the file writer's calls; this separates the layouts those calls could take.
//
// usage: node bench/commit-calls.mjs MODE ROOT [FILES]   (FILES defaults to 40,000: 4 per set)
//   plain    open, write, close in the set folder (what curl and a bare Node client do)
//   ours     the file writer's calls today: lstat the key's two folders, a temp file in
//            ROOT/.dataset-sync/tmp opened 'wx', write, fstat, close, rename into the set folder,
//            lstat the two folders again
//   samedir  the same, with the temp file in the set folder
//   contract only what docs/contracts.md asks: a temp file in ROOT/.dataset-sync/tmp (open, write,
//            close), renamed into the set folder; no fstat, no folder checks
//   stage    each set's files written in place in ROOT/.dataset-sync/tmp/stage-<id>/, that folder
//            renamed into sets/ once its files are written (lstat of the folders around it)
// Time each run with GNU time, caches dropped before it, and a fresh ROOT each run: ext4 without
// a journal scans past inodes deleted in the last minute, so deleting the last run's copy just
// before a run makes it slower.
import fs from 'node:fs';

const [mode, root, filesArg] = process.argv.slice(2);
const MODES = ['plain', 'ours', 'samedir', 'stage', 'contract'];
if (!MODES.includes(mode) || !root) {
  console.error(`usage: node bench/commit-calls.mjs ${MODES.join('|')} ROOT [FILES]`);
  process.exit(2);
}
const files = Number(filesArg ?? 40_000);
const scratch = `${root}/.dataset-sync/tmp`;
fs.mkdirSync(scratch, { recursive: true });
fs.mkdirSync(`${root}/sets`);
const data = Buffer.alloc(1024, 7);
let counter = 0;

/** A fresh temp name in `dir`, as the file writer makes them (tempPathFor: dot, name, pid, counter). */
function tempIn(dir, name) {
  return `${dir}/.${name}.${process.pid}-${(counter++).toString(16).padStart(8, '0')}.tmp`;
}

function writeNew(p) {
  const fd = fs.openSync(p, 'wx', 0o644);
  fs.writeSync(fd, data);
  fs.fstatSync(fd);
  fs.closeSync(fd);
}

const started = process.hrtime.bigint();
for (let i = 0; i < files; i++) {
  const set = Math.floor(i / 4);
  const name = `slot${i % 4}.mp4`;
  const dir = `${root}/sets/${set}`;
  if (mode === 'stage') {
    const staged = `${scratch}/stage-${set}`;
    if (i % 4 === 0) fs.mkdirSync(staged);
    writeNew(`${staged}/${name}`);
    if (i % 4 === 3 || i === files - 1) {
      fs.lstatSync(`${root}/sets`);
      fs.renameSync(staged, dir);
      fs.lstatSync(`${root}/sets`);
      fs.lstatSync(dir);
    }
    continue;
  }
  if (i % 4 === 0) fs.mkdirSync(dir);
  if (mode === 'plain') {
    fs.writeFileSync(`${dir}/${name}`, data);
    continue;
  }
  if (mode === 'contract') {
    const tmp = tempIn(scratch, name);
    fs.writeFileSync(tmp, data, { flag: 'wx' });
    fs.renameSync(tmp, `${dir}/${name}`);
    continue;
  }
  const folders = [`${root}/sets`, dir];
  for (const f of folders) fs.lstatSync(f);
  const tmp = tempIn(mode === 'samedir' ? dir : scratch, name);
  writeNew(tmp);
  fs.renameSync(tmp, `${dir}/${name}`);
  for (const f of folders) fs.lstatSync(f);
}
console.log(`${mode} ${files} files ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(2)} s`);

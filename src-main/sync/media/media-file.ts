// DEST/media.csv (docs/contracts.md §1): one row per file of the manifest, from the probe recorded
// on its entry (FileEntry.media) judged against the collection's media_rules (collection.json)
// and its listing. Written whole through Destination.writeAtomic, like the manifest, whenever the
// manifest is; kept as it is on a no-op sync (then only counted for the summary).
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { Destination } from '../destination/destination';
import type { LocalSets } from '../state/set-store';
import { isProblem, judge, rulesOfCollectionJson } from './media-check';

export const MEDIA_COLUMNS = ['path', 'width', 'height', 'fps', 'duration', 'codec', 'rules', 'listing'] as const;

/** The manifest's CSV rules (dataset.ts): a cell a spreadsheet would evaluate gets a ' and quotes; a ";" is quoted. */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

const MEDIA_KEY = 'media.csv';

/**
 * Writes media.csv (rows in the manifest's order: set id, then slot) unless `indexUnchanged`
 * and it is there; returns the files whose rules or listing is not `ok` (summary.mediaProblems).
 */
export interface MediaCounts {
  /** Files whose rules or listing is not `ok` (summary.mediaProblems), unprobed ones included. */
  problems: number;
  /** Of those, the files no prober read (`unprobed`): not known to break anything (summary.mediaUnprobed). */
  unprobed: number;
}

export async function writeMediaFile(dest: Destination, sets: () => LocalSets, indexUnchanged: boolean): Promise<MediaCounts> {
  if (indexUnchanged && (await dest.stat(MEDIA_KEY)) !== null) return countProblems(dest.read(MEDIA_KEY));
  const rules = rulesOfCollectionJson(await dest.readText('collection.json'));
  let problems = 0;
  let unprobed = 0;
  async function* rows(): AsyncGenerator<string[]> {
    for await (const set of sets()) {
      const entries = Object.entries(set.files).sort(([, a], [, b]) => a.slotIndex - b.slotIndex);
      for (const [rel, f] of entries) {
        const media = f.media?.sha256 === f.sha256 ? f.media : undefined;
        const v = judge(rel, media, rules);
        if (isProblem(v)) problems++;
        if (v.rules === 'unprobed') unprobed++;
        const p = media?.probe;
        yield [rel, ...(p ? [p.width, p.height, p.fps, p.duration, p.codec].map(String) : ['', '', '', '', '']), v.rules, v.listing];
      }
    }
  }
  const csv = stringify({ header: true, columns: [...MEDIA_COLUMNS], escape_formulas: true, quoted_match: [FORMULA_START, ';'] });
  void pipeline(Readable.from(rows()), csv).catch(() => undefined);
  await dest.writeAtomic(MEDIA_KEY, csv);
  return { problems, unprobed };
}

/**
 * Rows of media.csv (as written above) whose last two cells are not both `ok`. Counted chunk by
 * chunk as the file is read (tens of MB at 100,000 sets): the event loop (the app's window) gets
 * a turn between chunks instead of waiting for one read and split of the whole file.
 */
async function countProblems(chunks: AsyncIterable<Buffer>): Promise<MediaCounts> {
  const counts: MediaCounts = { problems: 0, unprobed: 0 };
  const decoder = new StringDecoder('utf8');
  let header = true;
  let rest = '';
  const count = (line: string): void => {
    if (header) {
      header = false;
      return;
    }
    line = line.replace(/\r$/, '');
    if (line !== '' && !line.endsWith(',ok,ok')) counts.problems++;
    if (/,unprobed,[^,]*$/.test(line)) counts.unprobed++;
  };
  for await (const chunk of chunks) {
    const lines = (rest + decoder.write(chunk)).split('\n');
    rest = lines.pop()!;
    for (const line of lines) count(line);
  }
  count(rest + decoder.end());
  return counts;
}

// The CSV files of the dataset (manifest.csv, media.csv, participants.csv) as streamed bodies,
// rows turned into text by csv-stringify's synchronous API a batch at a time: the same bytes as
// its stream (the header first, written even when there are no rows), without a stream step and
// a promise per row (the streamed version was most of the writers' time at the end of a first
// sync, issue 21).
import { stringify as stringifySync, type Options as CsvOptions } from 'csv-stringify/sync';
import type { LocalSet, LocalSets } from './state/set-store';

/** Text gathered before it is handed on: big enough to amortise a write, small enough to keep memory flat. */
const BATCH_CHARS = 256 * 1024;

/** The CSV text of `rowsOf` every set of `sets`, in order, with `options` (header and columns included), in batches. */
export async function* csvBody(sets: LocalSets, rowsOf: (set: LocalSet) => Iterable<string[]>, options: CsvOptions): AsyncGenerator<Buffer> {
  let header = options.header === true;
  let rows: string[][] = [];
  let text = '';
  const render = () => {
    text += stringifySync(rows, { ...options, header });
    header = false;
    rows = [];
  };
  for await (const set of sets) {
    for (const row of rowsOf(set)) rows.push(row);
    if (rows.length >= 512) render();
    if (text.length >= BATCH_CHARS) {
      yield Buffer.from(text);
      text = '';
    }
  }
  if (rows.length > 0 || header) render();
  if (text !== '') yield Buffer.from(text);
}

// The CSV files of the dataset (manifest.csv, media.csv, participants.csv) as streamed bodies,
// rows turned into text a batch at a time under the dataset's rules (dataset-csv.ts): the same
// bytes as csv-stringify's stream (the header first, written even when there are no rows),
// without a stream step and a promise per row (the streamed version was most of the writers' time
// at the end of a first sync, issue 21).
import { datasetCsvText } from './dataset-csv';
import type { LocalSet, LocalSets } from './state/records';
import { TEXT_CHUNK_CHARS } from './text-chunk';

/**
 * Rows rendered per call: few enough that the text of one call (about 30 KB of manifest rows)
 * leaves each chunk well under V8's large-object size (text-chunk.ts), many enough that the
 * call's own cost stays small.
 */
const RENDER_ROWS = 128;

/** The CSV text of `rowsOf` every set of `sets`, in order, with the header line of `columns` first, in chunks of about TEXT_CHUNK_CHARS. */
export async function* csvBody(sets: LocalSets, rowsOf: (set: LocalSet) => Iterable<string[]>, columns: readonly string[]): AsyncGenerator<Buffer> {
  let header = true;
  let rows: string[][] = [];
  let text = '';
  const render = () => {
    text += datasetCsvText(columns, rows, header);
    header = false;
    rows = [];
  };
  for await (const set of sets) {
    for (const row of rowsOf(set)) rows.push(row);
    if (rows.length >= RENDER_ROWS) render();
    if (text.length >= TEXT_CHUNK_CHARS) {
      yield Buffer.from(text);
      text = '';
    }
  }
  if (rows.length > 0 || header) render();
  if (text !== '') yield Buffer.from(text);
}

// The one rule set of the dataset's CSV files (manifest.csv, participants.csv, media.csv):
// RFC 4180 as csv-stringify writes it (`,` between cells; a cell holding `"`, `,`, CR or LF in
// quotes, its `"` doubled; `\n` after every row, the last one included) with formula-safe cells:
// a cell a spreadsheet would evaluate gets a ' prefix and quotes (OWASP's CSV-injection
// guidance), and a cell holding a ";" is quoted, since a spreadsheet in a locale whose separator
// is ";" would split the cell there and could start a formula at the split.
//
// csv-stringify is the authority on those bytes. It runs each cell through a general path (a
// context object, a pair array and a dozen option reads per cell): at the end of a sync that
// writes the three files whole at 100,000 sets, that was about 2 s of the engine's thread and most
// of their garbage (issue 21). So rows whose cells it would copy as they are, or only put in
// quotes (a comma, a line break, a ";"), are joined here with exactly its result, and a row with
// a cell it changes (a quote to double, a formula start to prefix) is still rendered by it, whole.
// test/engine/dataset-csv.test.ts holds the two equal on adversarial cells.
import { stringify as stringifySync, type Options as CsvOptions } from 'csv-stringify/sync';

/**
 * Cells a spreadsheet would evaluate as a formula: those starting with = + - @ tab or CR (and
 * their full-width forms, which some spreadsheets fold to ASCII). Every cell is treated alike,
 * numbers included: no manifest column holds a negative number (ids, slot indexes and sizes are
 * validated), so a leading "-" only ever comes from a server string such as a slot_key.
 */
export const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** `escape_formulas` adds the ' prefix; `quoted_match` quotes those cells and any holding a ";". */
export function datasetCsvOptions(columns: readonly string[]): CsvOptions {
  return { header: true, columns: [...columns], escape_formulas: true, quoted_match: [FORMULA_START, ';'] };
}

/** Characters for which csv-stringify puts a cell in quotes and changes nothing else: the delimiter, a line break, and ";" (quoted_match). */
const QUOTED_AS_IS = /[,;\r\n]/;

/**
 * The cell as csv-stringify writes it under these rules, or undefined when it must be left to
 * csv-stringify: a cell holding a `"` (doubled) or starting like a formula (the ' prefix).
 */
function simpleCell(cell: string): string | undefined {
  if (cell.includes('"') || FORMULA_START.test(cell)) return undefined;
  return QUOTED_AS_IS.test(cell) ? `"${cell}"` : cell;
}

/** The row's line (its first `width` cells) when every cell is simple; undefined when csv-stringify must render it. */
function simpleLine(row: readonly string[], width: number): string | undefined {
  const n = Math.min(row.length, width);
  let line = '';
  for (let i = 0; i < n; i++) {
    const cell = simpleCell(row[i]!);
    if (cell === undefined) return undefined;
    line = i === 0 ? cell : `${line},${cell}`;
  }
  return `${line}\n`;
}

/**
 * The CSV text of `rows` under the dataset's rules: what csv-stringify's
 * `stringify(rows, { ...datasetCsvOptions(columns), header })` returns, the header line first
 * when `header`. Cells beyond the columns' count are left out, as csv-stringify leaves them out.
 */
export function datasetCsvText(columns: readonly string[], rows: Iterable<readonly string[]>, header: boolean): string {
  const options = datasetCsvOptions(columns);
  let text = header ? stringifySync([], options) : '';
  for (const row of rows) text += simpleLine(row, columns.length) ?? stringifySync([[...row]], { ...options, header: false });
  return text;
}

// The dataset's CSV text is joined by dataset-csv.ts for rows csv-stringify would only copy or
// quote for a ";", and rendered by csv-stringify for every other row: the bytes must be exactly
// csv-stringify's with the dataset's options, whatever the cells hold.
import { stringify as stringifySync } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { datasetCsvOptions, datasetCsvText } from '../../src-main/sync/dataset-csv';

const COLUMNS = ['set_id', 'slot_key', 'path', 'participant_refs', 'note'];

/** What a server string could hold: every character the rules look at, their full-width forms, and text they must leave alone. */
const PIECES = ['a', 'Z', '7', ' ', '.', '_', '/', ':', '-', '=', '+', '@', '\t', '\r', '\n', '"', ',', ';', "'", '\\', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20', 'é', '日本', '\u2028', '😀', 'null'];

/** A deterministic generator (mulberry32), so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

function cell(next: () => number): string {
  // A third of the cells plain (the common case, where the fast path must still agree), the rest mixed.
  if (next() < 0.33) return `p_${Math.floor(next() * 1e6)}`;
  let s = '';
  const n = Math.floor(next() * 5);
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(next() * PIECES.length)];
  return s;
}

function rows(seed: number, count: number): string[][] {
  const next = random(seed);
  return Array.from({ length: count }, () => COLUMNS.map(() => cell(next)));
}

const reference = (rs: string[][], header: boolean) => stringifySync(rs, { ...datasetCsvOptions(COLUMNS), header });

describe('datasetCsvText', () => {
  it('writes exactly what csv-stringify writes with the dataset options, header or not', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rs = rows(seed, 250);
      expect(datasetCsvText(COLUMNS, rs, true), `seed ${seed}`).toBe(reference(rs, true));
      expect(datasetCsvText(COLUMNS, rs, false), `seed ${seed}`).toBe(reference(rs, false));
    }
  });

  it('quotes a ";" and neutralises formulas and quotes as csv-stringify does', () => {
    const rs = [
      ['1', 'wave', 'sets/1/set_1_slot_01.mp4', 'p_a;p_b', ''],
      ['2', '=HYPERLINK("x")', 'sets/2/a,b.mp4', '-1', '@SUM(A1)'],
      ['3', 'line\nbreak', 'cr\rhere', '"quoted"', '\uFF1D1+1'],
    ];
    const text = datasetCsvText(COLUMNS, rs, false);
    expect(text).toBe(reference(rs, false));
    expect(text.split('\n')[0]).toBe('1,wave,sets/1/set_1_slot_01.mp4,"p_a;p_b",');
    expect(text).toContain(`"'=HYPERLINK(""x"")"`);
    expect(text).toContain(`"'-1"`);
  });

  it('writes the header alone for no rows, and leaves out cells beyond the columns as csv-stringify does', () => {
    expect(datasetCsvText(COLUMNS, [], true)).toBe('set_id,slot_key,path,participant_refs,note\n');
    expect(datasetCsvText(COLUMNS, [], false)).toBe('');
    const wide = [['1', 'a', 'b', 'c', 'd', 'extra;cell', 'more'], ['2', 'a', 'b', 'c', 'd', '=formula']];
    expect(datasetCsvText(COLUMNS, wide, false)).toBe(reference(wide, false));
  });
});

// The dataset's CSV files are streamed in chunks that stay below V8's large-object size
// (src-main/sync/text-chunk.ts): a larger string or buffer lands on pages the process touches for
// the first time, a page fault per 4 KiB, and at a million files that was seconds of the end of a
// first sync. The chunks must still add up to exactly what csv-stringify writes in one go.
import { stringify as stringifySync } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { csvBody } from '../../src-main/sync/csv-body';
import { datasetCsvOptions } from '../../src-main/sync/dataset-csv';
import type { LocalSet } from '../../src-main/sync/state/records';

/** V8's largest object in a regular heap page (kMaxRegularHeapObjectSize): larger ones get pages of their own. */
const LARGE_OBJECT_BYTES = 128 * 1024;

const COLUMNS = ['set_id', 'slot', 'note'];

/** Rows with cells csv-stringify quotes or neutralises (a formula start, a ';', a quote), so the chunks carry its escaping. */
function rowsOf(set: LocalSet): string[][] {
  return [1, 2, 3, 4].map((slot) => [String(set.id), String(slot), slot === 1 ? `=cmd|${set.id}` : slot === 2 ? `a;"b" ${'x'.repeat(40)}` : 'plain text']);
}

function sets(n: number): LocalSet[] {
  return Array.from({ length: n }, (_, i) => ({ id: 1000 + i, updatedAt: null, isGold: false, complete: true, files: {} }));
}

describe('csvBody', () => {
  it('streams a large CSV in chunks under the large-object size that join into the one-go rendering', async () => {
    const all = sets(20_000);
    const chunks: Buffer[] = [];
    for await (const chunk of csvBody(all, rowsOf, COLUMNS)) chunks.push(chunk);

    const whole = stringifySync(all.flatMap(rowsOf), datasetCsvOptions(COLUMNS));
    expect(Buffer.concat(chunks).toString('utf8')).toBe(whole);
    expect(whole.length).toBeGreaterThan(16 * LARGE_OBJECT_BYTES);
    expect(chunks.length).toBeGreaterThan(16);
    for (const chunk of chunks) expect(chunk.length).toBeLessThan(LARGE_OBJECT_BYTES);
  });

  it('writes the header alone when there are no rows', async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of csvBody([], rowsOf, COLUMNS)) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString('utf8')).toBe('set_id,slot,note\n');
  });
});

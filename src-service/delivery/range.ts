// Range and If-Range handling of GET /files/:id (RFC 9110 §14), single ranges only.

export type RangeDecision =
  | { kind: 'full' }
  | { kind: 'partial'; start: number; end: number }
  | { kind: 'unsatisfiable' };

/**
 * Decides what part of a `size`-byte body to send.
 * - No Range, a unit other than bytes, a malformed header, or several ranges: the whole body
 *   (RFC 9110 lets a server ignore Range; we do not produce multipart answers).
 * - If-Range not equal (strong comparison) to the current ETag: the whole body, so a client
 *   never appends bytes of a changed file. A date in If-Range never matches: we send no Last-Modified.
 */
export function decideRange(rangeHeader: string | undefined, ifRange: string | undefined, etag: string, size: number): RangeDecision {
  if (rangeHeader === undefined) return { kind: 'full' };
  if (ifRange !== undefined && ifRange.trim() !== etag) return { kind: 'full' };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(rangeHeader);
  if (!m) return { kind: 'full' };
  const [, first = '', last = ''] = m;
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'full' };
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return { kind: 'partial', start, end };
}

// The key rules of destination.ts, in one place for every implementation: a key is relative and
// '/'-separated, with no empty, '.' or '..' segment. Keys are built from validated ids and names
// (names.ts) and never from raw server text, so a key that breaks a rule is a bug or a hand-edited
// manifest line: it is refused (DestinationError 'bad_key'), never trusted.
import { DestinationError } from './destination';

/**
 * A key that keeps every rule: '/'-separated segments, none empty, '.' or '..', and no backslash
 * or NUL. Tested first because every key is checked several times per file: one match costs a
 * tenth of what the segment walk below costs, and the walk then only names the broken rule.
 */
const PLAIN_KEY = /^(?!\.\.?(?:\/|$))[^/\\\0]+(?:\/(?!\.\.?(?:\/|$))[^/\\\0]+)*$/;

/** Why `key` breaks the key rules, or null when it keeps them. */
export function keyProblem(key: string): string | null {
  if (typeof key === 'string' && PLAIN_KEY.test(key)) return null;
  if (typeof key !== 'string' || key === '') return 'it is empty';
  if (key.startsWith('/')) return 'it is absolute';
  if (key.includes('\\')) return 'it holds a backslash';
  if (key.includes('\0')) return 'it holds a NUL character';
  for (const segment of key.split('/')) {
    if (segment === '') return 'it has an empty segment';
    if (segment === '.' || segment === '..') return `it has a '${segment}' segment`;
  }
  return null;
}

/** Throws DestinationError('bad_key') naming the key and the rule it breaks. */
export function checkKey(key: string): void {
  const problem = keyProblem(key);
  if (problem !== null) throw new DestinationError('bad_key', `The key ${JSON.stringify(key)} is not a valid dataset key: ${problem}.`);
}

/**
 * A list() prefix: '' (everything) or a key-like string that may end with '/' ('sets/'); the
 * same rules apply to what comes before the trailing slash.
 */
export function checkPrefix(prefix: string): void {
  if (prefix === '') return;
  checkKey(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
}

// The key rules' quick test (one regular expression) must agree with the rules themselves on
// every key, the tricky ones included: a key it passes wrongly would reach the file system.
import { describe, expect, it } from 'vitest';
import { keyProblem } from '../../src-main/sync/destination/key-rules';

/** The rules as destination.ts states them, written plainly as the oracle. */
function breaksRules(key: string): boolean {
  if (key === '' || key.startsWith('/') || key.includes('\\') || key.includes('\0')) return true;
  return key.split('/').some((s) => s === '' || s === '.' || s === '..');
}

describe('keyProblem', () => {
  it('agrees with the rules on every key of up to 6 characters from a hostile alphabet', () => {
    const alphabet = ['a', '.', '/', '\\', '\0', 'é'];
    let keys = [''];
    let checked = 0;
    for (let len = 0; len <= 6; len++) {
      for (const key of keys) {
        expect(keyProblem(key) !== null, JSON.stringify(key)).toBe(breaksRules(key));
        checked++;
      }
      keys = keys.flatMap((k) => alphabet.map((c) => k + c));
    }
    expect(checked).toBe((6 ** 7 - 1) / 5);
  });

  it('names the broken rule', () => {
    expect(keyProblem('sets/1/a.mp4')).toBeNull();
    expect(keyProblem('sets/..hidden/a')).toBeNull();
    expect(keyProblem('sets/../a')).toBe("it has a '..' segment");
    expect(keyProblem('sets//a')).toBe('it has an empty segment');
    expect(keyProblem('/sets')).toBe('it is absolute');
    expect(keyProblem('a\\b')).toBe('it holds a backslash');
    expect(keyProblem('a\0b')).toBe('it holds a NUL character');
    expect(keyProblem('')).toBe('it is empty');
  });
});

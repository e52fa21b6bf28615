// The key never appears in text that came from a server (issue 15 item 3). First the redactor
// itself; then servers that echo the Authorization header into every kind of answer (the
// reference service's `echo_auth` fault), read through both clients and through a real CLI sync.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, redactJson, secretPartOf } from '../../src-main/api/redact';
import { keyLeaksIn } from '../support/key-leaks';

const key = `dsk_live_${randomBytes(16).toString('hex')}`;
const secret = key.slice('dsk_live_'.length);
const secretRunsIn = (text: string) => keyLeaksIn(text, key);

describe('redactor', () => {
  const redact = createRedactor(key);

  it('finds the secret part behind a vendor prefix', () => {
    expect(secretPartOf(key)).toBe(secret);
    expect(secretPartOf('rk_live_not-a-real-key-0123456789')).toBe('not-a-real-key-0123456789');
    expect(secretPartOf('plainsecretwithoutanyprefix')).toBe('plainsecretwithoutanyprefix');
    // A "prefix" that leaves too little behind is no prefix.
    expect(secretPartOf('ab_cd')).toBe('ab_cd');
  });

  it('redacts the key, the secret and any run of 8 or more of its characters; keeps shorter runs and the prefix GET /me shows', () => {
    expect(redact(`Authorization: Bearer ${key}`)).toBe(`Authorization: Bearer dsk_live_${REDACTED}`);
    expect(redact(`echo ${secret.slice(5, 13)} end`)).toBe(`echo ${REDACTED} end`);
    expect(redact(`x${secret.slice(3, 10)}y`)).toBe(`x${secret.slice(3, 10)}y`);
    expect(redact(key.slice(0, 12))).toBe(key.slice(0, 12));
    expect(redact('nothing to see')).toBe('nothing to see');
  });

  it('leaves no run of the secret in any splice of it, however the echo is cut and mixed', () => {
    for (let round = 0; round < 500; round++) {
      const pieces: string[] = [];
      for (let n = 0; n < 4; n++) {
        const a = Math.floor(Math.random() * secret.length);
        const b = a + Math.floor(Math.random() * (secret.length - a + 1));
        pieces.push(secret.slice(a, b), randomBytes(2).toString('hex').slice(0, Math.floor(Math.random() * 4)));
      }
      const text = pieces.join('');
      const out = redact(text);
      expect(secretRunsIn(out), `${text} -> ${out}`).toEqual([]);
    }
  });

  it('redacts every string of a parsed answer, object keys included, without touching the prototype', () => {
    const parsed = JSON.parse(`{"error": "bad key ${key}", "list": ["${secret}", 3, null], "${secret}": {"__proto__": "x ${secret}"}}`) as Record<string, unknown>;
    const out = redactJson(parsed, redact);
    expect(secretRunsIn(JSON.stringify(out))).toEqual([]);
    expect(out.error).toBe(`bad key dsk_live_${REDACTED}`);
    expect(Object.getPrototypeOf(out[REDACTED])).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out[REDACTED], '__proto__')?.value).toBe(`x ${REDACTED}`);
  });

  it('a key shorter than a run is redacted whole', () => {
    expect(createRedactor('abc123')('x abc123 y')).toBe(`x ${REDACTED} y`);
  });
});

// The shortcut that reads the path of a server-given file or consent URL without the URL parser
// (src-main/api/plain-path.ts) may answer only what the parser would: the same origin, and the
// path as the request will send it. Anything else must be left to the parser (null).
import { describe, expect, it } from 'vitest';
import { plainPathOn } from '../../src-main/api/plain-path';
import { createRandom } from '../../src-service/prng';

/** What delivery-client.ts does without the shortcut: the path when the URL is on `origin`, else null. */
function parsedPathOn(origin: string, url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  return u.origin === origin ? u.pathname + u.search : null;
}

const ORIGINS = ['http://127.0.0.1:35405', 'https://delivery.example.com', 'http://[::1]:8080', 'https://xn--bcher-kva.example'];

describe('plainPathOn', () => {
  it('reads the service URLs as the URL parser does', () => {
    for (const origin of ORIGINS) {
      for (const path of ['/api/v1/partner/files/123', '/api/v1/partner/consents/9', '/files/1/', '/a_b~c-d/E9']) {
        expect(plainPathOn(origin, origin + path)).toBe(path);
        expect(parsedPathOn(origin, origin + path)).toBe(path);
      }
    }
  });

  it('leaves to the parser every URL that is not the origin followed by plain segments', () => {
    const origin = 'http://127.0.0.1:35405';
    const others = [
      // other hosts that start with the origin's text
      `${origin}.evil.example/files/1`,
      `${origin}@evil.example/files/1`,
      `${origin}0/files/1`,
      `${origin}:80/files/1`,
      // forms the parser rewrites or resolves
      `${origin}/files/./1`,
      `${origin}/files/../1`,
      `${origin}/files/%2e%2e/1`,
      `${origin}/files/.%2E/1`,
      `${origin}//files/1`,
      `${origin}/files\\1`,
      `${origin}/files/1?`,
      `${origin}/files/1?x=1`,
      `${origin}/files/1#x`,
      `${origin}/files/a b`,
      `${origin}/files/a\tb`,
      `${origin}/files/a\nb`,
      `${origin}/files/é`,
      `${origin}/files/1.mp4`,
      `${origin}/`,
      origin,
      // other spellings of the origin, relative and odd URLs
      'HTTP://127.0.0.1:35405/files/1',
      'http://127.0.0.1:035405/files/1',
      '/api/v1/partner/files/1',
      'files/1',
      '',
    ];
    for (const url of others) expect(plainPathOn(origin, url), JSON.stringify(url)).toBeNull();
  });

  it('never answers differently from the parser over generated URLs', () => {
    // Segments built from letters that matter to a URL parser: whatever the shortcut accepts, the
    // parser must place on the same origin with the same path.
    const plain = ['a', 'Z', '0', '-', '_', '~', '/'];
    const tricky = ['.', '%', '2e', '\\', '?', '#', '@', ':', ' ', '\t', '\n', 'é', '..', '//', '%2E', '?x', ''];
    // The reference service's seeded generator: a failure names the same URLs on every run.
    const random = createRandom(21);
    let accepted = 0;
    for (let i = 0; i < 20000; i++) {
      const origin = random.pick(ORIGINS);
      let tail = '';
      const parts = random.int(1, 8);
      // Mostly plain, so that the shortcut accepts many and a tricky letter decides the rest.
      for (let j = 0; j < parts; j++) tail += random.chance(0.8) ? random.pick(plain) : random.pick(tricky);
      const url = origin + (random.chance(0.25) ? '' : '/') + tail;
      const fast = plainPathOn(origin, url);
      if (fast === null) continue;
      accepted++;
      expect(parsedPathOn(origin, url), JSON.stringify(url)).toBe(fast);
    }
    expect(accepted).toBeGreaterThan(3000);
  });
});

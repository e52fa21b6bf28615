// Redaction of the API key from text a server sent (issue 15 item 3). A hostile or careless
// server may echo the Authorization header into an error body, a reason phrase, a header or a
// record's field; everything the clients pass on (ApiError messages, returned records, response
// headers) goes through the redactor made here, once, at the HTTP boundary.
//
// Not only the whole key: any run of its secret part long enough to carry 48 bits is replaced,
// so a truncated, split or partly quoted echo does not leak most of it either. The secret part
// is what follows a vendor prefix such as `dsk_live_` (the prefix is not secret: GET /me shows
// it), or the whole key when it has no such prefix.
//
// Why 48 bits and not a fixed 8 characters: a hex secret's 8-character runs carry only 32 bits,
// and the answers are full of hex (every file's sha256): with 40,000 files about one dataset in
// a hundred would have a sha256 that happens to contain one, redacted into a broken record. 48
// bits is 12 hex characters, 9 alphanumeric ones, and 8 (the floor) for base64-like secrets.

export const REDACTED = '[redacted]';
/** Runs shorter than this are never redacted, whatever the alphabet. */
export const MIN_RUN = 8;
const MIN_RUN_BITS = 48;

export type Redactor = (text: string) => string;

/** The part of a key that proves it: the key without a leading `word_` prefix chain (e.g. `dsk_live_`). */
export function secretPartOf(key: string): string {
  const m = /^(?:[A-Za-z]+_)+(.+)$/.exec(key);
  return m && m[1]!.length >= 2 * MIN_RUN ? m[1]! : key;
}

/** Characters in a run of the key's secret that is redacted: enough for 48 bits in its alphabet, at least MIN_RUN. */
export function redactedRunLength(apiKey: string): number {
  const secret = secretPartOf(apiKey);
  const bitsPerChar = /^[0-9a-f]+$/i.test(secret) ? 4 : /^[0-9A-Za-z]+$/.test(secret) ? Math.log2(62) : 6;
  return Math.max(MIN_RUN, Math.ceil(MIN_RUN_BITS / bitsPerChar));
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function createRedactor(apiKey: string): Redactor {
  const secret = secretPartOf(apiKey);
  const run = redactedRunLength(apiKey);
  if (secret.length < run) {
    // Too short to look for parts of it: only the key as a whole.
    return secret === '' ? (t) => t : (t) => t.split(secret).join(REDACTED);
  }
  const runs = new Set<string>();
  for (let i = 0; i + run <= secret.length; i++) runs.add(secret.slice(i, i + run));
  const pattern = new RegExp([...runs].map(escapeRegExp).join('|'), 'g');
  return (text) => {
    if (text.length < run) return text;
    pattern.lastIndex = 0;
    if (!pattern.test(text)) return text;
    pattern.lastIndex = 0;
    let out = '';
    let last = 0;
    for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
      // Extend the match as long as it is still a part of the secret (a longer echo is one run).
      let end = m.index + run;
      while (end < text.length && secret.includes(text.slice(m.index, end + 1))) end++;
      out += text.slice(last, m.index) + REDACTED;
      last = end;
      pattern.lastIndex = end;
    }
    return out + text.slice(last);
  };
}

/**
 * Redacts every string of a parsed JSON value, object keys included, in place (the value was
 * parsed from a server's answer and belongs to the caller). Returns the value.
 */
export function redactJson<T>(value: T, redact: Redactor): T {
  if (typeof value === 'string') return redact(value) as T;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = redactJson(value[i], redact);
    return value;
  }
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    const v = redactJson(o[key], redact);
    const safeKey = redact(key);
    if (safeKey === key && key !== '__proto__') {
      o[key] = v;
      continue;
    }
    // defineProperty, not assignment: a "__proto__" key from JSON.parse must stay a plain field.
    delete o[key];
    Object.defineProperty(o, safeKey, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return value;
}

/** True when the text holds a character JSON writes escaped (the quote, the backslash, controls) or may (`/`). */
const holdsJsonEscaped = (text: string): boolean => [...text].some((ch) => ch < ' ' || ch === '"' || ch === '\\' || ch === '/');

/**
 * Redacts a JSON answer's parsed value (redactJson), judged first on the text it was parsed from.
 * A string of the value holds the text's characters verbatim except where the text escapes them;
 * an escape can spell a character of the secret only as `\u` (or as any escape when the secret
 * holds a character JSON escapes). So when the text has no such escape and redacting it changes
 * nothing, no string of the value (object keys included) holds a run of the key, and the walk is
 * skipped: one regular-expression scan of the answer instead of one per string. A first sync of
 * 10,000 sets redacted about 500,000 strings one by one (issue 21: per-request CPU).
 */
export function createAnswerRedactor(apiKey: string, redact: Redactor): <T>(text: string, parsed: T) => T {
  const hiding = holdsJsonEscaped(secretPartOf(apiKey)) ? /\\/ : /\\u/;
  return (text, parsed) => (!hiding.test(text) && redact(text) === text ? parsed : redactJson(parsed, redact));
}

/** Header values (a response's headers object) with each value redacted; the object itself when nothing in it needs redacting (every file's answer). */
export function redactHeaders<H extends Record<string, string | string[] | undefined>>(headers: H, redact: Redactor): H {
  for (const name in headers) {
    const v = headers[name];
    if (redact(name) !== name || (typeof v === 'string' ? redact(v) !== v : Array.isArray(v) && v.some((x) => redact(x) !== x))) return redactedCopy(headers, redact);
  }
  return headers;
}

function redactedCopy<H extends Record<string, string | string[] | undefined>>(headers: H, redact: Redactor): H {
  const out: Record<string, string | string[] | undefined> = {};
  for (const [name, v] of Object.entries(headers)) out[redact(name)] = Array.isArray(v) ? v.map(redact) : v === undefined ? v : redact(v);
  return out as H;
}

/** Replaces `user:password@` (or `user@`) of every URL in the text by `***@` (proxy URLs). */
export function redactCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi, '$1***@');
}

// Building blocks for the zod schemas both processes share (IPC arguments, settings), and the
// one place that turns a refusal into a sentence. Every field's message says what it must be
// and what it got; the sentence is prefixed with the field's path ("concurrency" must be ...).
// Types and schemas only: no Node or Electron.
import { z } from 'zod';

/** "a string", "an array", "null"... for messages; never the value itself (it may be a secret). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? 'a string' : typeof value === 'object' ? 'an object' : typeof value;
}

/** A number shown as itself (it is never secret), anything else by its kind. */
function shown(value: unknown): string {
  return typeof value === 'number' ? String(value) : describeValue(value);
}

type Issue = { input?: unknown };

export function integer(min: number, max: number, what = `an integer from ${min} to ${max}`) {
  const error = (iss: Issue) => `must be ${what}, got ${shown(iss.input)}.`;
  return z.int({ error }).min(min, { error }).max(max, { error });
}

export const id = () => integer(1, Number.MAX_SAFE_INTEGER, 'a positive integer id (1 or more)');

export function decimal(min: number, max: number) {
  const error = (iss: Issue) => `must be a number from ${min} to ${max}, got ${shown(iss.input)}.`;
  return z.number({ error }).min(min, { error }).max(max, { error });
}

export const bool = () => z.boolean({ error: (iss) => `must be true or false, got ${describeValue(iss.input)}.` });

export function text(maxLength: number) {
  return z
    .string({ error: (iss) => `must be a string, got ${describeValue(iss.input)}.` })
    .max(maxLength, { error: (iss) => `is too long (${String((iss.input as string).length)} characters, at most ${maxLength}).` });
}

/** A string matching `pattern`; `what` completes "must be ...". Only short inputs are quoted back. */
export function matching(maxLength: number, pattern: RegExp, what: string) {
  return text(maxLength).regex(pattern, { error: (iss) => `must be ${what}, got "${String(iss.input).slice(0, 60)}".` });
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, {
    error: (iss) => `must be one of ${values.join(', ')}, got ${typeof iss.input === 'string' ? `"${iss.input.slice(0, 40)}"` : describeValue(iss.input)}.`,
  });
}

// Keys are opaque tokens: printable ASCII without spaces. Anything else is a paste accident
// (a trailing newline, a quote) that would only fail later with a confusing 401. Messages
// never echo the key.
export const apiKeySchema = text(512)
  .min(1, { error: 'is empty: paste the key shown on the Data API page.' })
  .regex(/^[\x21-\x7e]+$/, { error: 'contains spaces, line breaks or other characters an API key never has.' });

/** Shape only: whether the address is acceptable (https, or http on loopback) is main's check. */
export const baseUrlSchema = text(2048);

/** Channels without an argument: undefined over Electron IPC, null after a JSON round trip (the test bridge). */
export const noArgument = () =>
  z.union([z.undefined(), z.null()], { error: (iss) => `This call takes no argument, got ${describeValue(iss.input)}.` }).transform(() => undefined);

/** An object argument that refuses unknown fields (they are mistakes, or probing). */
export const args = <S extends z.core.$ZodLooseShape>(shape: S) => z.strictObject(shape);

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function pathName(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

/**
 * The first problem in a failed parse, as one sentence naming the field. Parent objects are
 * "Expected an object", absent fields "Missing field", unknown ones "Unexpected field".
 */
export function describeProblem(error: z.ZodError, input: unknown): string {
  const issue = error.issues[0];
  if (!issue) return 'The argument is invalid.';
  const path = issue.path;
  const where = pathName(path);
  if (issue.code === 'unrecognized_keys') {
    const field = where ? `${where}.${issue.keys[0]}` : issue.keys[0];
    return `Unexpected field "${field}".`;
  }
  if (issue.code === 'invalid_type' && issue.expected === 'object') {
    return `${where ? `"${where}" must be an object` : 'Expected an object argument'}, got ${describeValue(valueAt(input, path))}.`;
  }
  if (path.length === 0) return issue.message;
  if (issue.code === 'invalid_type' && valueAt(input, path) === undefined) return `Missing field "${where}".`;
  return `"${where}" ${issue.message}`;
}

/** Parses `input` or throws what `fail` makes of the sentence. */
export function parseOr<S extends z.ZodType>(schema: S, input: unknown, fail: (message: string) => Error): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw fail(describeProblem(result.error, input));
  return result.data;
}

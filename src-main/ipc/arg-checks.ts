// Building blocks of the IPC argument validators (validate.ts, recruiter-validate.ts): the
// renderer is untrusted input, and every refusal names the field and what was wrong.
import { IpcFailure } from './ipc-failure';

export type Validator<T> = (arg: unknown) => T;

export function invalid(message: string): IpcFailure {
  return new IpcFailure('invalid_argument', message);
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? 'a string' : `${typeof value}`;
}

export function noArgument(arg: unknown): undefined {
  // undefined over Electron IPC; null or absent after a JSON round trip (the test bridge).
  if (arg === undefined || arg === null) return undefined;
  throw invalid(`This call takes no argument, got ${describe(arg)}.`);
}

export function record(arg: unknown, required: readonly string[], optional: readonly string[] = []): Record<string, unknown> {
  if (typeof arg !== 'object' || arg === null || Array.isArray(arg)) {
    throw invalid(`Expected an object argument, got ${describe(arg)}.`);
  }
  const obj = arg as Record<string, unknown>;
  const allowed = new Set([...required, ...optional]);
  for (const key of Object.keys(obj)) {
    if (!allowed.has(key)) throw invalid(`Unexpected field "${key}" (allowed: ${[...allowed].join(', ') || 'none'}).`);
  }
  for (const key of required) {
    if (obj[key] === undefined) throw invalid(`Missing field "${key}".`);
  }
  return obj;
}

export function integerIn(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalid(`"${field}" must be an integer from ${min} to ${max}, got ${typeof value === 'number' ? String(value) : describe(value)}.`);
  }
  return value;
}

export function boolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw invalid(`"${field}" must be true or false, got ${describe(value)}.`);
  return value;
}

export function optionalBoolean(value: unknown, field: string): boolean | undefined {
  return value === undefined ? undefined : boolean(value, field);
}

export function string(value: unknown, field: string, maxLength: number): string {
  if (typeof value !== 'string') throw invalid(`"${field}" must be a string, got ${describe(value)}.`);
  if (value.length > maxLength) throw invalid(`"${field}" is too long (${value.length} characters, at most ${maxLength}).`);
  return value;
}

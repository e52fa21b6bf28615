// Runtime validators for every invoke channel's argument. The renderer is treated as
// untrusted input: wrong types, extra keys and out-of-range numbers are refused with a
// message that names the field, before anything else runs.
import { BaseUrlError, validateBaseUrl } from '../api/base-url';
import type { CoreInvokeChannels, SettingsPatch } from './contract';
import type { CoreInvokeChannel } from './channels';
import { boolean, describe, integerIn, invalid, noArgument, optionalBoolean, record, string, type Validator } from './arg-checks';
import { IpcFailure } from './ipc-failure';

function positiveId(value: unknown, field: string): number {
  return integerIn(value, field, 1, Number.MAX_SAFE_INTEGER);
}


/** Throws IpcFailure('base_url') for URLs that are not https or loopback http. */
export function baseUrl(value: unknown, field = 'baseUrl'): string {
  const text = string(value, field, 2048);
  try {
    return validateBaseUrl(text);
  } catch (e) {
    if (e instanceof BaseUrlError) throw new IpcFailure('base_url', e.message);
    throw e;
  }
}

// Keys are opaque tokens: printable ASCII without spaces. Anything else is a paste accident
// (a trailing newline, a quote) that would only fail later with a confusing 401.
const API_KEY_PATTERN = /^[\x21-\x7e]+$/;
const API_KEY_MAX_LENGTH = 512;

export function apiKey(value: unknown): string {
  if (typeof value !== 'string') throw invalid(`"apiKey" must be a string, got ${describe(value)}.`);
  if (value.length === 0) throw invalid('"apiKey" is empty: paste the key shown on the Data API page.');
  if (value.length > API_KEY_MAX_LENGTH) throw invalid(`"apiKey" is too long (at most ${API_KEY_MAX_LENGTH} characters).`);
  // Never echo the key (or part of it) in the message.
  if (!API_KEY_PATTERN.test(value)) throw invalid('"apiKey" contains spaces, line breaks or other characters an API key never has.');
  return value;
}

export function concurrency(value: unknown): number {
  return integerIn(value, 'concurrency', 1, 16);
}

export function autoSyncMinutes(value: unknown): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 15 || value > 60) {
    throw invalid(`"autoSyncMinutes" must be null (off) or an integer from 15 to 60, got ${typeof value === 'number' ? String(value) : describe(value)}.`);
  }
  return value;
}

const SET_STATUS_PATTERN = /^[a-z_]{1,32}$/;

function collectionIdOnly(arg: unknown): { collectionId: number } {
  const o = record(arg, ['collectionId']);
  return { collectionId: positiveId(o.collectionId, 'collectionId') };
}

export function settingsPatch(arg: unknown): SettingsPatch {
  const o = record(arg, [], ['concurrency', 'autoSyncMinutes', 'excludeGold']);
  const patch: SettingsPatch = {};
  if (o.concurrency !== undefined) patch.concurrency = concurrency(o.concurrency);
  if (o.autoSyncMinutes !== undefined) patch.autoSyncMinutes = autoSyncMinutes(o.autoSyncMinutes);
  if (o.excludeGold !== undefined) patch.excludeGold = boolean(o.excludeGold, 'excludeGold');
  return patch;
}

type Args = { [C in CoreInvokeChannel]: CoreInvokeChannels[C]['arg'] };

export const validators: { [C in CoreInvokeChannel]: Validator<Args[C]> } = {
  'connection:get': noArgument,
  'connection:connect': (arg) => {
    const o = record(arg, ['baseUrl', 'apiKey']);
    // The key is checked first so a bad URL message never sits next to an unchecked key.
    const key = apiKey(o.apiKey);
    return { baseUrl: baseUrl(o.baseUrl), apiKey: key };
  },
  'connection:forget': noArgument,
  'collections:list': noArgument,
  'collections:get': collectionIdOnly,
  'sets:list': (arg) => {
    const o = record(arg, ['collectionId', 'status', 'page', 'perPage']);
    const status = string(o.status, 'status', 32);
    if (!SET_STATUS_PATTERN.test(status)) throw invalid(`"status" must be a set status such as "accepted" or "in_review", got "${status}".`);
    return {
      collectionId: positiveId(o.collectionId, 'collectionId'),
      status,
      page: integerIn(o.page, 'page', 1, 1_000_000),
      perPage: integerIn(o.perPage, 'perPage', 1, 200),
    };
  },
  'settings:get': noArgument,
  'settings:update': settingsPatch,
  'dataset:pickFolder': collectionIdOnly,
  'dataset:showInFolder': collectionIdOnly,
  'sync:start': (arg) => {
    const o = record(arg, ['collectionId'], ['full']);
    const full = optionalBoolean(o.full, 'full');
    return full === undefined ? { collectionId: positiveId(o.collectionId, 'collectionId') } : { collectionId: positiveId(o.collectionId, 'collectionId'), full };
  },
  'sync:cancel': collectionIdOnly,
  'sync:state': collectionIdOnly,
  'sync:history': collectionIdOnly,
  'verify:run': collectionIdOnly,
  'app:openExternal': (arg) => {
    const o = record(arg, ['url']);
    return { url: string(o.url, 'url', 2048) };
  },
};

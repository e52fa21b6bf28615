// The key rules of destination.ts, checked by the bucket before a key becomes an object name:
// a bucket has no folders to escape from, but 'a/../b' or '/x' would name objects other
// readers of the layout (rclone, a folder copy of the bucket) resolve elsewhere.
import { DestinationError } from '../destination';

export function checkKey(key: string): string {
  if (key === '' || key.startsWith('/') || key.endsWith('/') || key.includes('\\') || key.includes('\0')) throw badKey(key);
  for (const segment of key.split('/')) if (segment === '' || segment === '.' || segment === '..') throw badKey(key);
  return key;
}

/** A prefix for list(): '' or a key prefix; the same rules except that it may end with '/'. */
export function checkListPrefix(prefix: string): string {
  if (prefix === '') return prefix;
  checkKey(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
  return prefix;
}

function badKey(key: string): DestinationError {
  return new DestinationError('bad_key', `Refusing the object key ${JSON.stringify(key)}: keys are relative, '/'-separated, without empty, '.' or '..' parts.`);
}

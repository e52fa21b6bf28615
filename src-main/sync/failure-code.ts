// The stable code of a failure (FailureCode in src-shared/sync-events.ts), read from what failed
// (the error's type, kind and errno), never from its message: the window's plain words and
// scripts reading --json branch on the code, so rewording a message cannot change what they do.
import type { FailureCode } from '../../src-shared/sync-events';
import { isApiError } from '../api/errors';
import { DestinationError, EscapeError } from './destination/destination';

/** An error that knows its own code (a file given up for good, a set the client rejected). */
export interface CodedError {
  readonly failureCode: FailureCode;
}

function isCoded(e: unknown): e is CodedError {
  return typeof (e as Partial<CodedError> | null)?.failureCode === 'string';
}

const FULL = new Set(['ENOSPC', 'EDQUOT']);
const READ_ONLY = new Set(['EACCES', 'EPERM', 'EROFS']);

export function failureCode(e: unknown): FailureCode {
  if (isCoded(e)) return e.failureCode;
  if (e instanceof EscapeError) return 'escaped';
  if (isApiError(e)) {
    switch (e.kind) {
      case 'not_found':
        return 'not_served';
      case 'auth':
        return 'auth';
      case 'forbidden':
        return 'forbidden';
      case 'rate_limited':
        return 'rate_limited';
      case 'server':
        return 'server_error';
      case 'network':
        return e.networkCause === 'tls' ? 'tls' : e.networkCause === 'stalled' ? 'stalled' : 'connection';
      case 'range':
        return 'connection';
      case 'malformed':
      case 'bad_request':
      case 'validation':
        return 'bad_listing';
      default:
        return 'unknown';
    }
  }
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (FULL.has(code)) return 'disk_full';
    if (READ_ONLY.has(code)) return 'not_writable';
  }
  if (e instanceof DestinationError) return e.kind === 'bad_key' ? 'escaped' : 'storage';
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return 'storage';
  return 'unknown';
}

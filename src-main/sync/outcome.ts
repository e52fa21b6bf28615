// How a sync ends: which failures stop it as a whole (summary.fatal) and the exit code each
// maps to (docs/contracts.md §2). The CLI maps API failures outside a sync with the same table.
import { isApiError, type ApiErrorKind } from '../api/errors';
import type { SyncSummary } from '../../src-shared/sync-events';
import { DestinationError } from './destination/destination';
import { isFatalFsError, localFsError } from './local-errors';

export type ExitCode = SyncSummary['exitCode'];

/** Kinds of summary.fatal: the engine's own, then the API error kinds of the walk. */
export type FatalKind = 'config' | 'local_fs' | 'locked' | 'internal' | ApiErrorKind;

export interface Fatal {
  kind: FatalKind;
  message: string;
}

/** 2 usage/configuration (including a collection that is not there), 3 authentication, 4 the service failed. */
export function exitCodeFor(kind: FatalKind): 2 | 3 | 4 {
  switch (kind) {
    case 'config':
    case 'local_fs':
    case 'locked':
    case 'internal':
    case 'not_found':
      return 2;
    case 'auth':
      return 3;
    default:
      return 4;
  }
}

/** An error that stops the sync wherever it happens (401, disk full, a folder that cannot be written), else undefined. */
export function fatalAnywhere(e: unknown): Fatal | undefined {
  if (isApiError(e) && e.kind === 'auth') return { kind: 'auth', message: `${e.message}. Check the API key (it may be revoked or expired).` };
  if (e instanceof DestinationError) return destinationFatal(e);
  if (isFatalFsError(e)) return { kind: 'local_fs', message: localFsError(e, 'write the dataset').message };
  return undefined;
}

/**
 * A destination's failure that stops the sync: 'io' is today's local_fs (disk full, not
 * writable), 'config' and 'locked' exit 2 as well, 'unreachable' (a store that kept failing)
 * exits 4 like an unreachable service. A bad key or a folder escape fails one file only.
 */
function destinationFatal(e: DestinationError): Fatal | undefined {
  switch (e.kind) {
    case 'io':
      return { kind: 'local_fs', message: e.message };
    case 'config':
      return { kind: 'config', message: e.message };
    case 'locked':
      return { kind: 'locked', message: e.message };
    case 'unreachable':
      return { kind: 'network', message: e.message };
    default:
      return undefined;
  }
}

/** A failure of the collection fetch or the page walk: every API error there is fatal; other errors are not ours to map. */
export function walkFatal(e: unknown, doing: string, collectionId: number): Fatal | undefined {
  if (!isApiError(e)) return undefined;
  if (e.kind === 'not_found') return { kind: 'not_found', message: `Collection ${collectionId} was not found or is not this account's (${e.message}).` };
  if (e.kind === 'malformed') return { kind: 'malformed', message: `Could not ${doing}: the service answered outside the API contract: ${e.message}` };
  return { kind: e.kind, message: `Could not ${doing}: ${e.message}` };
}

export function isAbortError(e: unknown): boolean {
  return (isApiError(e) && e.kind === 'aborted') || (e as { name?: string })?.name === 'AbortError';
}

/** The exit code of a finished sync. */
export function summaryExitCode(fatal: Fatal | undefined, s: Pick<SyncSummary, 'cancelled' | 'filesFailed' | 'setsFailed'>): ExitCode {
  if (fatal) return exitCodeFor(fatal.kind);
  return s.cancelled || s.filesFailed > 0 || s.setsFailed > 0 ? 1 : 0;
}

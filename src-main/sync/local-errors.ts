// Failures of the local file system that stop the whole sync (DEST not writable, disk full):
// continuing would only fail every other file the same way. A LocalFsError is the folder's
// DestinationError of kind 'io' (exit 2, summary.fatal.kind local_fs).
import { DestinationError } from './destination/destination';

const FATAL_FS_CODES = new Set(['ENOSPC', 'EDQUOT', 'EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EIO', 'EEXIST', 'EISDIR', 'EMFILE', 'ENFILE']);

export class LocalFsError extends DestinationError {
  constructor(message: string, code: string | undefined, options?: { cause?: unknown }) {
    super('io', message, code);
    this.name = 'LocalFsError';
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

export function isFatalFsError(e: unknown): e is NodeJS.ErrnoException {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && FATAL_FS_CODES.has(code);
}

/** `e` in the user's words, naming what was being done; a DestinationError (already in words) passes through. */
export function localFsError(e: unknown, doing: string): DestinationError {
  if (e instanceof DestinationError) return e;
  const err = e as NodeJS.ErrnoException;
  const code = err?.code;
  const hint =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'the disk is full; free some space and sync again (partial downloads are kept and resume)'
      : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'the folder is not writable'
        : code === 'ENOTDIR'
          ? 'a part of the path is a file, not a folder'
          : code === 'ENOENT'
            ? 'a folder on the way is missing (was the dataset folder removed or unmounted during the sync?)'
            : (err?.message ?? String(e));
  return new LocalFsError(`Cannot ${doing}: ${hint} (${code ?? 'error'}${err?.path ? ` at ${err.path}` : ''})`, code, { cause: e });
}

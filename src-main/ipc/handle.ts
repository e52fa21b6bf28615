// The one wrapper every IPC handler (core and recruiter) goes through.
import type { z } from 'zod';
import type { IpcError, IpcResult } from '../../src-shared/ipc-contract';
import { parseOr } from '../../src-shared/schema-kit';
import { IpcFailure } from './ipc-failure';

/**
 * The argument is parsed against the contract's schema first (a refusal is invalid_argument
 * naming the field, before any side effect), then the work runs; anything thrown becomes an
 * IpcError, never an exception across the bridge.
 */
export function handle<S extends z.ZodType, R>(schema: S, run: (arg: z.output<S>) => Promise<R>, toError: (e: unknown) => IpcError) {
  return async (arg: unknown): Promise<IpcResult<R>> => {
    try {
      const checked = parseOr(schema, arg, (message) => new IpcFailure('invalid_argument', message));
      return { ok: true, value: await run(checked) };
    } catch (e) {
      return { ok: false, error: toError(e) };
    }
  };
}


// A failure that a handler turns into an IpcResult error. Thrown inside the IPC layer only; it
// never crosses the bridge as an exception.
import type { IpcError, IpcErrorKind } from '../../src-shared/ipc-contract';

export class IpcFailure extends Error {
  readonly kind: IpcErrorKind;
  readonly fieldErrors: Record<string, string[]> | undefined;

  constructor(kind: IpcErrorKind, message: string, fieldErrors?: Record<string, string[]>) {
    super(message);
    this.name = 'IpcFailure';
    this.kind = kind;
    this.fieldErrors = fieldErrors;
  }

  toIpcError(): IpcError {
    return this.fieldErrors ? { kind: this.kind, message: this.message, fieldErrors: this.fieldErrors } : { kind: this.kind, message: this.message };
  }
}

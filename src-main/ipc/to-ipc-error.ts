// Maps anything a handler can throw to the IpcError the renderer sees. Known failures keep
// their message; unknown ones become a generic 'internal' error (details go to the main
// process log, never a stack across the bridge). Every message passes through redaction so
// an API key can never leave main, whatever a lower layer put in its message.
import { BaseUrlError } from '../api/base-url';
import { isApiError, type ApiErrorKind } from '../api/errors';
import { SecretStoreUnavailableError } from '../secrets/secret-store';
import { AppError, type AppErrorKind } from '../app/app-error';
import { UnsafeExternalUrlError } from '../app/security';
import { SettingsError } from '../settings/settings-store';
import type { IpcError, IpcErrorKind } from '../../src-shared/ipc-contract';
import { IpcFailure } from './ipc-failure';

const API_KIND_TO_IPC: Record<ApiErrorKind, IpcErrorKind> = {
  auth: 'auth',
  forbidden: 'forbidden',
  not_found: 'not_found',
  // We validate every parameter before sending, so a 400 means the service refused what
  // the user asked for (e.g. a status it does not know).
  bad_request: 'invalid_argument',
  validation: 'validation',
  range: 'malformed',
  rate_limited: 'server',
  server: 'server',
  network: 'network',
  malformed: 'malformed',
  aborted: 'network',
};

const APP_KIND_TO_IPC: Record<AppErrorKind, IpcErrorKind> = {
  not_connected: 'not_connected',
  busy: 'busy',
  no_folder: 'no_folder',
  base_url: 'base_url',
  refused: 'invalid_argument',
  cancelled: 'cancelled',
};

export function redact(message: string, secrets: readonly string[]): string {
  let out = message;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out;
}

export function toIpcError(error: unknown, secrets: readonly string[], log: (message: string, error: unknown) => void = defaultLog): IpcError {
  let result: IpcError;
  if (error instanceof IpcFailure) {
    result = error.toIpcError();
  } else if (error instanceof AppError) {
    result = { kind: APP_KIND_TO_IPC[error.kind], message: error.message };
  } else if (error instanceof UnsafeExternalUrlError) {
    result = { kind: 'invalid_argument', message: error.message };
  } else if (isApiError(error)) {
    result = { kind: API_KIND_TO_IPC[error.kind], message: error.message };
    if (error.fieldErrors) result.fieldErrors = error.fieldErrors;
  } else if (error instanceof BaseUrlError) {
    result = { kind: 'base_url', message: error.message };
  } else if (error instanceof SecretStoreUnavailableError) {
    result = { kind: 'keychain', message: error.message };
  } else if (error instanceof SettingsError) {
    result = { kind: 'internal', message: error.message };
  } else {
    log('Unexpected error in an IPC handler', error);
    result = { kind: 'internal', message: 'Unexpected error in the app; see the log for details.' };
  }
  result.message = redact(result.message, secrets);
  return result;
}

function defaultLog(message: string, error: unknown): void {
  // Stack traces stay in the main process log. Keys are not part of any thrown message we
  // create, but redact anyway happens on what reaches the renderer only.
  console.error(message, error);
}

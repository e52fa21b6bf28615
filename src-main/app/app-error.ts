// What the app layer refuses, as values its callers can tell apart: the IPC layer maps each
// kind to the error the window sees (ipc/to-ipc-error.ts), the scheduler turns it into a notice.
export type AppErrorKind =
  | 'not_connected' // no key stored for the account
  | 'busy' // a sync or verify of this collection is running
  | 'no_folder' // no dataset folder chosen for the collection
  | 'base_url' // an address this connection may not use
  | 'refused' // a request the app will not carry out (e.g. a non-https link)
  | 'cancelled'; // the user stopped it (a verify)

export class AppError extends Error {
  constructor(
    readonly kind: AppErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

// Typed errors of the HTTP clients. Every failure of a request becomes one ApiError with a
// kind the callers branch on (the CLI maps kinds to exit codes, the UI to messages).
// Messages never contain the API key.

export type ApiErrorKind =
  | 'auth' // 401: missing, unknown, expired or revoked key
  | 'forbidden' // 403: missing scope or another account's resource
  | 'not_found' // 404
  | 'bad_request' // 400
  | 'validation' // 422, with field errors
  | 'range' // 416
  | 'rate_limited' // 429
  | 'server' // 5xx
  | 'network' // unreachable, reset, timeout, stall
  | 'malformed' // the answer does not match the contract
  | 'aborted'; // cancelled by the caller

/** What more is known of a `network` failure, for the failure code (sync/failure-code.ts) rather than its wording. */
export type NetworkCause = 'tls' | 'stalled';

export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  /** For kind `network`: a certificate refused, or a body that stalled (no data, or under 1 KiB/s). */
  readonly networkCause: NetworkCause | undefined;
  readonly status: number | undefined;
  /** Seconds the server asked us to wait (Retry-After), when it said so. */
  readonly retryAfterSeconds: number | undefined;
  /** Field -> messages, for 422 answers. */
  readonly fieldErrors: Record<string, string[]> | undefined;

  constructor(
    kind: ApiErrorKind,
    message: string,
    opts: { status?: number; retryAfterSeconds?: number; fieldErrors?: Record<string, string[]>; cause?: unknown; networkCause?: NetworkCause } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ApiError';
    this.kind = kind;
    this.status = opts.status;
    this.retryAfterSeconds = opts.retryAfterSeconds;
    this.fieldErrors = opts.fieldErrors;
    this.networkCause = opts.networkCause;
  }

  /** Worth another try after a back-off: the server or the network may recover. */
  get retryable(): boolean {
    return this.kind === 'server' || this.kind === 'network' || this.kind === 'rate_limited';
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

// S3 failures in the user's words (issue 20: "Errors a user understands"). Every message names
// the endpoint and the bucket and never a secret: the SDK's own messages are not passed through
// when they could quote a request (they do not carry the secret key, but an access key id in a
// SignatureDoesNotMatch body's StringToSign would be noise at best).
import { ProxyRefusedError } from '../../../api/dispatcher';
import { DestinationError } from '../destination';

export interface Where {
  /** What the user sees of the endpoint: its URL, or 'AWS S3'. */
  endpoint: string;
  bucket: string;
}

interface SdkError {
  name?: string;
  code?: string;
  Code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number; requestId?: string; extendedRequestId?: string };
  $response?: { headers?: Record<string, string> };
  cause?: unknown;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ECONNABORTED',
  'TimeoutError', 'RequestTimeout', 'NetworkingError',
]);

function codeOf(e: SdkError): string {
  return e.Code ?? e.code ?? e.name ?? '';
}

/** A network failure: nothing answered, or the answer was cut. */
export function isNetworkError(e: unknown): boolean {
  const err = e as SdkError;
  if (!err || typeof err !== 'object') return false;
  if (err.$metadata?.httpStatusCode !== undefined) return false;
  if (NETWORK_CODES.has(codeOf(err))) return true;
  const cause = err.cause as SdkError | undefined;
  return cause !== undefined && NETWORK_CODES.has(codeOf(cause));
}

export function statusOf(e: unknown): number | undefined {
  return (e as SdkError)?.$metadata?.httpStatusCode;
}

export function isCode(e: unknown, ...codes: string[]): boolean {
  return codes.includes(codeOf(e as SdkError));
}

/**
 * The DestinationError for a failed S3 call; `doing` says what was attempted ("list", "upload
 * sets/12/set_12_slot_01.mp4"). Already translated errors pass through unchanged.
 */
export function s3Error(e: unknown, where: Where, doing: string): DestinationError {
  if (e instanceof DestinationError) return e;
  const err = (e ?? {}) as SdkError;
  const at = `the S3 endpoint ${where.endpoint}, bucket ${where.bucket}`;
  const code = codeOf(err);
  const status = err.$metadata?.httpStatusCode;
  // The proxy of the environment said no (s3/proxied-handler.ts): its own words, without credentials.
  if (e instanceof ProxyRefusedError) return new DestinationError('config', `Could not ${doing}: ${e.message}`, e.code);
  if (isNetworkError(e)) {
    return new DestinationError('unreachable', `Could not ${doing}: ${at} could not be reached (${code || 'network error'}).`, code);
  }
  if (code === 'InvalidAccessKeyId' || code === 'SignatureDoesNotMatch' || code === 'InvalidToken' || code === 'ExpiredToken') {
    return new DestinationError('config', `Could not ${doing}: ${at} refused the credentials (${code}): check the access key id and the secret key.`, code);
  }
  if (code === 'CredentialsProviderError' || /Could not load credentials/i.test(err.message ?? '')) {
    return new DestinationError(
      'config',
      `Could not ${doing}: no S3 credentials for ${at} (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or ~/.aws/credentials).`,
      code,
    );
  }
  if (code === 'NoSuchBucket') return new DestinationError('config', `Could not ${doing}: the bucket ${where.bucket} does not exist at ${where.endpoint}.`, code);
  if (code === 'AccessDenied' || code === 'AllAccessDisabled' || code === 'AccountProblem') {
    return new DestinationError('config', `Could not ${doing}: no permission at ${at} (${code}).`, code);
  }
  if (code === 'QuotaExceeded' || code === 'EntityTooLarge') return new DestinationError('config', `Could not ${doing}: ${at} refused the upload (${code}).`, code);
  // An answer without an S3 request id and without an S3 error code is not an S3 store (a web
  // server, the data-collection service, a proxy's error page): say so instead of guessing.
  if (!err.$metadata?.requestId && !(err.Code ?? err.code) && status !== undefined) {
    return new DestinationError('config', `Could not ${doing}: ${where.endpoint} does not answer like an S3 store (HTTP ${status} without an S3 error); check the endpoint URL.`, String(status));
  }
  if (status === 403) return new DestinationError('config', `Could not ${doing}: no permission at ${at} (HTTP 403: wrong credentials or no access).`, code);
  if (status !== undefined && (status >= 500 || status === 429)) {
    return new DestinationError('unreachable', `Could not ${doing}: ${at} kept failing (HTTP ${status} ${code}).`, code);
  }
  return new DestinationError('io', `Could not ${doing}: ${at} answered ${status !== undefined ? `HTTP ${status} ` : ''}${code || 'an error'}.`, code);
}

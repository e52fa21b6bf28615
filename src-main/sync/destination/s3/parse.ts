// A bucket destination's text (docs/contracts.md §2): `s3://BUCKET/PREFIX` (the registry hands this
// backend every text of the s3 scheme, any case). The bucket's endpoint comes from an explicit
// --s3-endpoint, else (for a consents text) the dataset's, else AWS_ENDPOINT_URL_S3, else
// AWS_ENDPOINT_URL, else AWS; the region from AWS_REGION (default us-east-1); path-style
// addressing for IP and loopback endpoints.
import { isLoopbackHost } from '../../../api/base-url';
import { DestinationError } from '../destination';
import type { ParseOptions } from '../registry';
import { DEFAULT_REGION, needsPathStyle, type BucketSpec } from './naming';

/**
 * Bucket names as S3 allows them for new buckets: 3-63 characters of lowercase letters, digits,
 * '.' and '-', starting and ending with a letter or digit, no '..', not an IP address.
 */
export function isValidBucketName(name: string): boolean {
  return (
    /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name) &&
    !name.includes('..') &&
    !/^\d{1,3}(\.\d{1,3}){3}$/.test(name) &&
    !name.startsWith('xn--') &&
    !name.endsWith('-s3alias')
  );
}

function configError(message: string): DestinationError {
  return new DestinationError('config', message);
}

/** The endpoint as a URL the SDK can use: http(s), no path, query or credentials. */
export function normaliseEndpoint(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw configError(`The S3 endpoint "${raw}" is not a URL (expected e.g. https://s3.example.org).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw configError(`The S3 endpoint ${url.origin} must start with https:// (http:// only for this computer: 127.0.0.1, localhost, [::1]).`);
  if (url.username || url.password) throw configError('The S3 endpoint must not contain credentials: give them through AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or a profile.');
  // Consent records carry real names and the requests carry the S3 signature: nothing goes in clear beyond this machine.
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw configError(`The S3 endpoint ${url.origin} must start with https://: plain http:// is allowed only for this computer (127.0.0.1, localhost, [::1]).`);
  }
  const extra = `${url.pathname === '/' ? '' : url.pathname}${url.search}${url.hash}`;
  if (extra !== '') throw configError(`The S3 endpoint must be a bare origin: remove "${extra}" from it (the bucket goes in s3://BUCKET/PREFIX).`);
  return url.origin;
}

/** Parses `s3://BUCKET/PREFIX` (any case of the scheme) into a bucket spec. */
export function parseBucketUrl(value: string, options: ParseOptions = {}): BucketSpec {
  const rest = value.slice('s3://'.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  if (!isValidBucketName(bucket)) {
    throw configError(`"${bucket}" is not a valid bucket name in ${value} (3-63 lowercase letters, digits, '.' or '-').`);
  }
  const prefix = (slash < 0 ? '' : rest.slice(slash + 1)).replace(/^\/+|\/+$/g, '');
  if (prefix === '') {
    throw configError(`${value} names a whole bucket: give a prefix, s3://${bucket}/PREFIX (the consents go beside it, under PREFIX.consents/).`);
  }
  if (prefix.split('/').some((s) => s === '' || s === '.' || s === '..') || /[\\\0]/.test(prefix)) {
    throw configError(`The prefix "${prefix}" in ${value} has an empty, '.' or '..' part.`);
  }
  const env = options.env ?? process.env;
  // A consents text read beside a bucket dataset is in the dataset's store unless told otherwise.
  const nearEndpoint = options.near?.kind === 'bucket' ? options.near.endpoint : undefined;
  const rawEndpoint = (options.endpoint ?? nearEndpoint) || env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
  const endpoint = rawEndpoint ? normaliseEndpoint(rawEndpoint) : undefined;
  const spec: BucketSpec = {
    kind: 'bucket',
    bucket,
    prefix,
    ...(endpoint ? { endpoint } : {}),
    region: options.region || env.AWS_REGION || DEFAULT_REGION,
    // An explicit choice wins (the app's stored location); absent, IP and loopback endpoints need path style.
    forcePathStyle: options.forcePathStyle ?? (endpoint ? needsPathStyle(endpoint) : false),
  };
  return spec;
}

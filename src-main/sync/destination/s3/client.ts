// The S3 client for a bucket destination: the AWS SDK v3 with its conventions (the default
// credential chain when the app gives no keys, AWS_REGION...), bounded timeouts, and checksums
// only where an operation requires them.
import { S3Client } from '@aws-sdk/client-s3';
import type { BucketCredentials, DestinationSpec } from '../destination';

export type BucketSpec = Extract<DestinationSpec, { kind: 'bucket' }>;

export const DEFAULT_REGION = 'us-east-1';

/** An endpoint whose host is an IP address or loopback: no virtual-hosted names there. */
export function needsPathStyle(endpoint: string): boolean {
  const host = new URL(endpoint).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}

export function makeS3Client(spec: BucketSpec, credentials?: BucketCredentials): S3Client {
  // The SDK warns on every run under Node < 22 that its releases after January 2027 will need
  // it; the CLI supports Node 20.19 and the app runs Electron's Node 22: noise for users.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return new S3Client({
    ...(spec.endpoint ? { endpoint: spec.endpoint } : {}),
    region: spec.region ?? DEFAULT_REGION,
    forcePathStyle: spec.forcePathStyle ?? (spec.endpoint ? needsPathStyle(spec.endpoint) : false),
    ...(credentials ? { credentials } : {}),
    // The SDK's default (since 3.729) adds a CRC32 to every upload, as an aws-chunked trailer
    // on streamed bodies, which Ceph 16 and other S3-compatible stores do not understand. The
    // integrity of what is stored is checked with Content-MD5 instead (s3-upload.ts).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 4,
    // Options of the SDK's own Node handler (a plain object: no direct dependency on @smithy).
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
  });
}

// The S3 client for a bucket destination: the AWS SDK v3 with its conventions (the default
// credential chain when the app gives no keys, AWS_REGION...), bounded timeouts, and checksums
// only where an operation requires them; and the count of the requests it sends (the summary's
// `storage`).
import { Agent } from 'node:https';
import { S3Client } from '@aws-sdk/client-s3';
import type { StorageStats } from '../../../../src-shared/sync-events';
import { proxySettingsFromEnv, trustedCertificates } from '../../../api/dispatcher';
import { registeredSystemProxy } from '../../../api/system-proxy';
import type { BucketCredentials } from '../destination';
import type { Where } from './errors';
import { DEFAULT_REGION, needsPathStyle, type BucketSpec } from './naming';
import { ProxiedRequestHandler } from './proxied-handler';

export { DEFAULT_REGION, needsPathStyle, type BucketSpec } from './naming';

/** A bucket as one destination's requests reach it: the client, the bucket's name, and how messages name them. */
export interface BucketTarget {
  client: S3Client;
  bucket: string;
  where: Where;
}

const CONNECTION_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 120_000;

/**
 * The same network as the service client (README, "Networks"): with a proxy configured (the
 * variables, or the desktop's system proxy) the service client's dispatcher carries the requests;
 * otherwise the SDK's own handler, trusting the same authorities (OS store, NODE_EXTRA_CA_CERTS).
 */
function requestHandler(spec: BucketSpec) {
  const proxies = proxySettingsFromEnv(process.env);
  if (proxies.httpProxy || proxies.httpsProxy || registeredSystemProxy()) {
    return new ProxiedRequestHandler({ connectTimeout: CONNECTION_TIMEOUT_MS, idleTimeout: REQUEST_TIMEOUT_MS });
  }
  // Options of the SDK's own Node handler (a plain object: no direct dependency on @smithy).
  // The CA list is read only for HTTPS (AWS itself when there is no endpoint). An Agent, not
  // its options: for `Expect: 100-continue` uploads the handler makes a throwaway agent of its
  // own (with Node's roots only) unless it was given one.
  const secure = !spec.endpoint || spec.endpoint.startsWith('https:');
  return {
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    ...(secure ? { httpsAgent: new Agent({ keepAlive: true, maxSockets: 50, ca: trustedCertificates() }) } : {}),
  };
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
    // integrity of what is stored is checked with Content-MD5 instead (upload.ts).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 4,
    requestHandler: requestHandler(spec),
  });
}

/**
 * Counts every request the client sends (retries included), for the summary's `storage` and the
 * no-op benchmark: the counts grow in the object returned.
 */
export function countRequests(client: S3Client): StorageStats {
  const counted: StorageStats = { requests: 0, listRequests: 0, bytesUploaded: 0, bytesDownloaded: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      counted.requests++;
      if (context.commandName === 'ListObjectsV2Command') counted.listRequests++;
      const request = args.request as { method?: string; headers?: Record<string, string> };
      const sent = Number(request.headers?.['content-length'] ?? 0);
      if ((request.method === 'PUT' || request.method === 'POST') && Number.isFinite(sent)) counted.bytesUploaded += sent;
      const result = await next(args);
      const response = result.response as { headers?: Record<string, string> };
      if (context.commandName === 'GetObjectCommand') counted.bytesDownloaded += Number(response.headers?.['content-length'] ?? 0) || 0;
      return result;
    },
    { step: 'finalizeRequest', name: 'datasetSyncRequestCount' },
  );
  return counted;
}

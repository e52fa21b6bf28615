// What a bucket destination is called and where this machine keeps its state, without the AWS
// SDK: parsing a destination, the app's settings and a folder sync never load the SDK (its
// modules cost a no-op ~0.2-2 s and ~20 MB; lazy-bucket.ts loads it when a bucket is used).
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

/** How a bucket destination is named (settings, --dest s3://BUCKET/PREFIX); no secret is part of it. */
export interface BucketSpec {
  kind: 'bucket';
  bucket: string;
  /** Not empty, no leading or trailing '/': keys go under `${prefix}/` (docs/contracts.md §1, object storage). */
  prefix: string;
  /** Absent: AWS (from the SDK's default chain and region). */
  endpoint?: string;
  region?: string;
  forcePathStyle?: boolean;
}

export const DEFAULT_REGION = 'us-east-1';

/** An endpoint whose host is an IP address or loopback: no virtual-hosted names there. */
export function needsPathStyle(endpoint: string): boolean {
  const host = new URL(endpoint).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}

/**
 * This machine's folder for a bucket destination: $XDG_STATE_HOME (or ~/.local/state)
 * /dataset-sync/buckets/<first 16 hex of SHA-256 of endpoint, bucket and prefix>.
 */
export function defaultBucketStateDir(spec: BucketSpec, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(os.homedir(), '.local', 'state');
  const id = createHash('sha256')
    .update(`${spec.endpoint ?? 'aws'}\n${spec.bucket}\n${spec.prefix}`)
    .digest('hex')
    .slice(0, 16);
  return path.join(base, 'dataset-sync', 'buckets', id);
}

/** `s3://bucket/prefix`, with the endpoint when it is not AWS. Never a secret. */
export function bucketLabel(spec: BucketSpec): string {
  return `s3://${spec.bucket}/${spec.prefix}${spec.endpoint ? ` at ${spec.endpoint}` : ''}`;
}

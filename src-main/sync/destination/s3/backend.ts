// The S3-compatible bucket backend as the registry knows it (registry.ts): texts `s3://BUCKET/PREFIX`
// (parse.ts), labels with the endpoint when it is not AWS, engine state in a folder of this
// machine's named from endpoint, bucket and prefix (naming.ts), siblings `PREFIX.consents/` and
// `PREFIX.withdrawn/` in the same bucket. Opening loads no SDK (lazy-bucket.ts).
import { DestinationError, type BucketCredentials, type Destination } from '../destination';
import type { DestinationBackend } from '../registry';
import { LazyBucket } from './lazy-bucket';
import { bucketLabel, defaultBucketStateDir, type BucketSpec } from './naming';
import { parseBucketUrl } from './parse';

/** The bucket destination for a spec; `credentials` absent = the AWS SDK's default chain. */
export function openBucket(spec: BucketSpec, options: { credentials?: BucketCredentials; stateDir?: string; partSize?: number } = {}): Destination {
  return new LazyBucket(spec, options);
}

/** A prefix of the same bucket that is the dataset's or under it: never a place for consents (they hold real names). */
function insideDataset(spec: BucketSpec, dataset: BucketSpec): boolean {
  return spec.bucket === dataset.bucket && (spec.prefix === dataset.prefix || spec.prefix.startsWith(`${dataset.prefix}/`));
}

export const bucketBackend: DestinationBackend<BucketSpec> = {
  kind: 'bucket',
  scheme: 's3',
  example: 's3://BUCKET/PREFIX',
  capabilities: ['stats', 'cleanUp', 'sharedAcrossMachines'],
  parse: parseBucketUrl,
  label: bucketLabel,
  stateHome: (spec, env) => defaultBucketStateDir(spec, env),
  // A bucket destination always has a PREFIX (parse refuses s3://BUCKET alone): with none, every
  // key of the bucket would be "under PREFIX", the consents included.
  sibling: (spec, suffix) => ({ ...spec, prefix: spec.prefix + suffix }),
  open(spec, { credentials, consentsOf }) {
    const dataset = consentsOf?.dataset;
    if (dataset?.kind === 'bucket' && insideDataset(spec, dataset)) {
      const named = consentsOf?.text ?? `s3://${spec.bucket}/${spec.prefix}`;
      throw new DestinationError('config', `The consents prefix ${named} must not be inside the dataset s3://${dataset.bucket}/${dataset.prefix}: consents hold real names.`);
    }
    return openBucket(spec, credentials ? { credentials } : {});
  },
};

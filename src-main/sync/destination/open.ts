// A Destination from its spec (settings, command line): the one place that knows which
// implementation serves which kind. Opening touches nothing: prepare() makes it usable.
import { defaultConsentsDir } from '../layout';
import { DestinationError, siblingSpec, type BucketCredentials, type Destination, type DestinationSpec } from './destination';
import { createLocalFolder } from './local-folder';
import { isBucketUrl, openBucket, parseDestination, type BucketEnvOptions } from './parse-destination';

/** The dataset's destination. Throws DestinationError('config') for a spec that cannot be served. */
export function openDestination(spec: DestinationSpec, credentials?: BucketCredentials): Destination {
  if (spec.kind === 'folder') return createLocalFolder(spec.path);
  return openBucket(spec, credentials ? { credentials } : {});
}

/**
 * The consents folder of a dataset: `consentsDir` when given, else the sibling `DEST.consents`
 * (docs/contracts.md §1). A folder is resolved to its real path now and refused when it is the dataset
 * folder or inside it (DestinationError 'config').
 */
export function openConsents(dataset: DestinationSpec, consentsDir?: string, bucket: BucketEnvOptions & { credentials?: BucketCredentials } = {}): Destination {
  if (dataset.kind === 'folder') {
    if (consentsDir !== undefined && isBucketUrl(consentsDir)) return openDestination(parseDestination(consentsDir, bucket), bucket.credentials);
    // defaultConsentsDir: the sibling of the resolved path (siblingSpec's rule), so '.' names '../<name>.consents'.
    const dir = consentsDir ?? defaultConsentsDir(dataset.path);
    return createLocalFolder(dir, { consents: { dataset: dataset.path } });
  }
  // A bucket's consents: PREFIX.consents/ in the same bucket (never under PREFIX), another s3://
  // prefix, or a local folder (which cannot be inside the bucket's dataset by construction).
  if (consentsDir === undefined) return openDestination(siblingSpec(dataset, '.consents'), bucket.credentials);
  if (isBucketUrl(consentsDir)) {
    const spec = parseDestination(consentsDir, { ...bucket, endpoint: bucket.endpoint ?? dataset.endpoint });
    if (spec.kind === 'bucket' && spec.bucket === dataset.bucket && (spec.prefix === dataset.prefix || spec.prefix.startsWith(`${dataset.prefix}/`))) {
      throw new DestinationError('config', `The consents prefix ${consentsDir} must not be inside the dataset s3://${dataset.bucket}/${dataset.prefix}: consents hold real names.`);
    }
    return openDestination(spec, bucket.credentials);
  }
  return createLocalFolder(consentsDir, { consents: { dataset: null } });
}

// A Destination from its spec (settings, command line): the one place that knows which
// implementation serves which kind. Opening touches nothing: prepare() makes it usable.
import { defaultConsentsDir } from '../layout';
import { DestinationError, type Destination, type DestinationSpec } from './destination';
import { createLocalFolder } from './local-folder';

/** The dataset's destination. Throws DestinationError('config') for a spec that cannot be served. */
export function openDestination(spec: DestinationSpec): Destination {
  if (spec.kind === 'folder') return createLocalFolder(spec.path);
  throw new DestinationError('config', `Syncing into a bucket (s3://${spec.bucket}/${spec.prefix}) is not supported yet by this build.`);
}

/**
 * The consents folder of a dataset: `consentsDir` when given, else the sibling `DEST.consents`
 * (DESIGN 1.1). A folder is resolved to its real path now and refused when it is the dataset
 * folder or inside it (DestinationError 'config').
 */
export function openConsents(dataset: DestinationSpec, consentsDir?: string): Destination {
  if (dataset.kind === 'folder') {
    // defaultConsentsDir: the sibling of the resolved path (siblingSpec's rule), so '.' names '../<name>.consents'.
    const dir = consentsDir ?? defaultConsentsDir(dataset.path);
    return createLocalFolder(dir, { consents: { dataset: dataset.path } });
  }
  if (consentsDir !== undefined) throw new DestinationError('config', 'A consents folder beside a bucket is not supported yet by this build.');
  throw new DestinationError('config', `Syncing into a bucket (s3://${dataset.bucket}/${dataset.prefix}) is not supported yet by this build.`);
}

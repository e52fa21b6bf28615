// Destinations from their specs (settings, command line), through the registry (all.ts): which
// backend serves a spec is the registry's to say. Opening touches nothing: prepare() makes a
// destination usable.
import { destinations } from './all';
import type { BucketCredentials, Destination, DestinationSpec, SiblingSuffix } from './destination';
import type { OpenOptions, ParseOptions } from './registry';

/** The dataset's destination. Throws DestinationError('config') for a spec that cannot be served. */
export function openDestination(spec: DestinationSpec, credentials?: BucketCredentials): Destination {
  return destinations.open(spec, credentials ? { credentials } : {});
}

/**
 * The consents destination of a dataset (docs/contracts.md §1): `consentsDir` when given (a folder or
 * a scheme's text, read beside the dataset), else its `.consents` sibling; never the dataset or
 * inside it (DestinationError 'config'). A folder is resolved to its real path now.
 */
export function openConsents(dataset: DestinationSpec, consentsDir?: string, options: ParseOptions & OpenOptions = {}): Destination {
  return destinations.openConsents(dataset, consentsDir, options);
}

/** The destination beside this one with `suffix` added to its name (docs/contracts.md §1): `DEST.consents`, `DEST.withdrawn`, a bucket's `PREFIX.consents/`. Never inside it. */
export function siblingSpec(spec: DestinationSpec, suffix: SiblingSuffix): DestinationSpec {
  return destinations.sibling(spec, suffix);
}

/** Where this machine keeps the engine's state for the destination (its Destination.stateDir), without opening it. */
export function stateHome(spec: DestinationSpec, env?: NodeJS.ProcessEnv): string {
  return destinations.stateHome(spec, env);
}

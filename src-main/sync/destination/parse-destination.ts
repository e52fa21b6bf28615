// What the CLI's --dest/--consents-dir and the settings accept (docs/contracts.md §2), read through the
// registry (all.ts): a text starting with a registered scheme (`s3://BUCKET/PREFIX`) goes to that
// backend, anything else is a folder path. What the text leaves out (a store's endpoint, region)
// comes from the options, then from the environment.
import { destinations } from './all';
import type { DestinationSpec } from './destination';
import type { ParseOptions } from './registry';

export type { ParseOptions } from './registry';

/** The spec a text names; DestinationError 'config' when it names nothing usable (an empty text, a bad bucket name...). */
export function parseDestination(value: string, options: ParseOptions = {}): DestinationSpec {
  return destinations.parse(value, options);
}

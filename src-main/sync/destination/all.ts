// Every destination backend (rclone's backend/all): the registry the engine parses, names and opens
// destinations through. A new backend is a folder under destination/ with its backend.ts, and one
// line here.
import { folderBackend } from './local/backend';
import { DestinationRegistry } from './registry';
import { bucketBackend } from './s3/backend';

export const destinations = new DestinationRegistry([folderBackend, bucketBackend]);

// The app's bucket form checks the endpoint it stores by the rule --s3-endpoint follows.
export { normaliseEndpoint } from './s3/parse';

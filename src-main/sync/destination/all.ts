// Every destination backend (rclone's backend/all): the registry the engine parses, names and opens
// destinations through. A new backend is a folder under destination/ with its backend.ts, and one
// line here. The in-memory one (`memory://NAME`) is for tests: registered so that a test names it
// as a user names a folder or a bucket, never offered (testOnly: not in messages, help or the app).
import { folderBackend } from './local/backend';
import { memoryBackend } from './memory/backend';
import { DestinationRegistry } from './registry';
import { bucketBackend } from './s3/backend';

export const destinations = new DestinationRegistry([folderBackend, bucketBackend, memoryBackend]);

// The app's bucket form checks the endpoint it stores by the rule --s3-endpoint follows.
export { normaliseEndpoint } from './s3/parse';

// The one Destination contract (test/destination/contract.ts, rclone's fstests) run against the
// local folder, as test/destination/s3-bucket.test.ts runs it against a real Ceph RGW and
// memory-contract.test.ts against the in-memory destination: the engine may treat them alike
// only because they pass the same suite, each with the capabilities its backend declares.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { folderBackend } from '../../src-main/sync/destination/local/backend';
import { createLocalFolder } from '../../src-main/sync/destination/local/local-folder';
import { destinationContract } from './contract';

destinationContract('local folder', async () => {
  const work = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-contract-')));
  const dest = createLocalFolder(path.join(work, 'ds'));
  return {
    dest,
    sibling: createLocalFolder(path.join(work, 'ds.withdrawn')),
    cleanup: async () => {
      await dest.close();
      await fs.rm(work, { recursive: true, force: true });
    },
  };
}, { capabilities: folderBackend.capabilities });

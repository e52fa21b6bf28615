// openDestination / openConsents (src-main/sync/destination/open.ts): a folder spec opens a
// LocalFolder without touching the disk; a bucket spec opens the bucket destination (no request
// until prepare) with its consents beside the prefix, never under it.
import os from 'node:os';
import path from 'node:path';
import { promises as fs } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openConsents, openDestination } from '../../src-main/sync/destination/open';

describe('openDestination', () => {
  it('opens a folder by its absolute path and creates nothing until prepare', async () => {
    const dir = path.join(os.tmpdir(), `dsync-open-${process.pid}`, 'ds');
    const d = openDestination({ kind: 'folder', path: dir });
    expect(d).toMatchObject({ kind: 'folder', label: dir, stateDir: path.join(dir, '.dataset-sync'), capabilities: { freeSpace: true, localRoot: dir } });
    await expect(fs.access(path.dirname(dir))).rejects.toMatchObject({ code: 'ENOENT' });
    const consents = openConsents({ kind: 'folder', path: dir });
    expect(consents.label).toBe(`${dir}.consents`);
  });

  it('opens a bucket and its consents beside the prefix (PREFIX.consents), refusing consents under PREFIX', () => {
    const spec = { kind: 'bucket' as const, bucket: 'research-data', prefix: 'faces/2026', endpoint: 'http://127.0.0.1:9', region: 'us-east-1' };
    const d = openDestination(spec);
    expect(d).toMatchObject({ kind: 'bucket', label: 's3://research-data/faces/2026 at http://127.0.0.1:9', capabilities: { freeSpace: false } });
    expect(openConsents(spec).label).toBe('s3://research-data/faces/2026.consents at http://127.0.0.1:9');
    expect(openConsents(spec, 's3://research-data/elsewhere').label).toBe('s3://research-data/elsewhere at http://127.0.0.1:9');
    expect(() => openConsents(spec, 's3://research-data/faces/2026/consents')).toThrow(expect.objectContaining({ kind: 'config', message: expect.stringMatching(/must not be inside the dataset/) }));
  });
});

// openDestination / openConsents (src-main/sync/destination/open.ts): a folder spec opens a
// LocalFolder without touching the disk; a bucket is refused in words until its implementation
// is wired in.
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

  it('refuses a bucket with a clear configuration error (not supported yet)', () => {
    const spec = { kind: 'bucket' as const, bucket: 'b', prefix: 'p' };
    expect(() => openDestination(spec)).toThrow(expect.objectContaining({ kind: 'config', message: expect.stringMatching(/s3:\/\/b\/p.*not supported yet/) }));
    expect(() => openConsents(spec)).toThrow(expect.objectContaining({ kind: 'config' }));
  });
});

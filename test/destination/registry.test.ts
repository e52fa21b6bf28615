// The destination registry (src-main/sync/destination/registry.ts, all.ts): texts go to the backend
// their scheme names (any case), every other text is a folder path as before; a backend's parse,
// label, state home and siblings are its own; a new backend is served without a line of engine
// code; what cannot be registered twice is refused.
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { destinations } from '../../src-main/sync/destination/all';
import { DestinationError, type Destination } from '../../src-main/sync/destination/destination';
import { folderBackend } from '../../src-main/sync/destination/local/backend';
import { DestinationRegistry, type DestinationBackend } from '../../src-main/sync/destination/registry';
import { bucketBackend } from '../../src-main/sync/destination/s3/backend';
import { defaultBucketStateDir } from '../../src-main/sync/destination/s3/naming';

const NO_ENV = {};

describe('the registry of destination backends', () => {
  it('sends a text to the backend its scheme names, in any case; anything else is a folder path, as given', () => {
    expect(destinations.parse('s3://b-1/p', { env: NO_ENV })).toMatchObject({ kind: 'bucket', bucket: 'b-1', prefix: 'p' });
    expect(destinations.parse('S3://b-1/p', { env: NO_ENV })).toMatchObject({ kind: 'bucket' });
    for (const folder of ['/data/set', 'rel/dir', 'ftp://not-a-scheme-we-serve', 'C:\\data', 's3:/one-slash']) {
      expect(destinations.parse(folder, { env: NO_ENV })).toEqual({ kind: 'folder', path: folder });
    }
    expect(destinations.hasScheme('s3://b-1/p')).toBe(true);
    expect(destinations.hasScheme('/data/set')).toBe(false);
  });

  it('an empty text is refused naming what is offered (a test-only backend is never offered)', () => {
    const e = (() => {
      try {
        destinations.parse('  ');
      } catch (err) {
        return err as DestinationError;
      }
      throw new Error('expected a refusal');
    })();
    expect(e).toBeInstanceOf(DestinationError);
    expect(e.message).toBe('The destination is empty: give a folder or s3://BUCKET/PREFIX.');
  });

  it("each backend names its own labels, state homes and siblings: a folder's beside its resolved path", () => {
    const cwd = process.cwd();
    expect(destinations.label({ kind: 'folder', path: 'ds' })).toBe(path.join(cwd, 'ds'));
    expect(destinations.stateHome({ kind: 'folder', path: '/data/ds' })).toBe('/data/ds/.dataset-sync');
    expect(destinations.sibling({ kind: 'folder', path: '/data/ds/' }, '.withdrawn')).toEqual({ kind: 'folder', path: '/data/ds.withdrawn' });
    expect(destinations.sibling({ kind: 'folder', path: '.' }, '.consents')).toEqual({ kind: 'folder', path: `${cwd}.consents` });
    const bucket = { kind: 'bucket' as const, bucket: 'b-1', prefix: 'team/data', endpoint: 'http://127.0.0.1:9' };
    expect(destinations.label(bucket)).toBe('s3://b-1/team/data at http://127.0.0.1:9');
    expect(destinations.stateHome(bucket, { XDG_STATE_HOME: '/xdg' })).toBe(defaultBucketStateDir(bucket, { XDG_STATE_HOME: '/xdg' }));
    expect(destinations.sibling(bucket, '.consents')).toEqual({ ...bucket, prefix: 'team/data.consents' });
  });

  it('a consents text is read beside the dataset: a bucket dataset lends its endpoint; a folder inside the dataset folder is refused', () => {
    const bucket = { kind: 'bucket' as const, bucket: 'b-1', prefix: 'p', endpoint: 'http://127.0.0.1:9' };
    expect(destinations.openConsents(bucket, 's3://b-2/c', { env: NO_ENV }).label).toBe('s3://b-2/c at http://127.0.0.1:9');
    expect(destinations.openConsents({ kind: 'folder', path: '/data/ds' }, 's3://b-2/c', { env: NO_ENV }).label).toBe('s3://b-2/c');
    const dir = path.join(os.tmpdir(), `dsync-registry-${process.pid}`, 'ds');
    expect(() => destinations.openConsents({ kind: 'folder', path: dir }, path.join(dir, 'consents'))).toThrow(
      expect.objectContaining({ kind: 'config', message: expect.stringMatching(/inside/) }),
    );
    expect(destinations.openConsents({ kind: 'folder', path: dir }, undefined).label).toBe(`${dir}.consents`);
  });

  it('serves a new backend without engine code: registered by scheme, parsed, opened and named by it', () => {
    const opened: string[] = [];
    const fake = {
      kind: 'bucket',
      scheme: 'fake',
      example: 'fake://X',
      capabilities: [],
      parse: (text: string) => ({ kind: 'bucket', bucket: text.slice(7), prefix: 'p' }),
      label: (spec: { bucket: string }) => `fake://${spec.bucket}`,
      stateHome: () => '/state',
      sibling: (spec: { bucket: string; prefix: string }, suffix: string) => ({ ...spec, prefix: spec.prefix + suffix }),
      open: (spec: { bucket: string }) => {
        opened.push(spec.bucket);
        return { label: `fake://${spec.bucket}` } as Destination;
      },
    } as unknown as DestinationBackend;
    const registry = new DestinationRegistry([folderBackend]);
    registry.register(fake as typeof bucketBackend);
    const spec = registry.parse('FAKE://thing');
    expect(registry.open(spec).label).toBe('fake://thing');
    expect(registry.openConsents(spec, undefined).label).toBe('fake://thing');
    expect(opened).toEqual(['thing', 'thing']);
    expect(registry.parse('/elsewhere')).toEqual({ kind: 'folder', path: '/elsewhere' });
  });

  it('refuses a second backend of one kind, one scheme, or a second taker of texts without a scheme', () => {
    const registry = new DestinationRegistry([folderBackend, bucketBackend]);
    expect(() => registry.register(bucketBackend)).toThrow(/kind bucket is already registered/);
    expect(() => registry.register({ ...bucketBackend, kind: 'other' } as unknown as typeof bucketBackend)).toThrow(/scheme s3:\/\/ is already registered/);
    expect(() => registry.register({ ...folderBackend, kind: 'other' } as unknown as typeof folderBackend)).toThrow(/claim texts without a scheme/);
    expect(() => registry.backend('nothing')).toThrow(DestinationError);
  });
});

// What --dest, --consents-dir and the settings accept (docs/contracts.md §2): s3://BUCKET/PREFIX or a folder.
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DestinationError } from '../../src-main/sync/destination/destination';
import { siblingSpec } from '../../src-main/sync/destination/open';
import { parseDestination } from '../../src-main/sync/destination/parse-destination';
import { openBucket } from '../../src-main/sync/destination/s3/backend';
import { isValidBucketName } from '../../src-main/sync/destination/s3/parse';
import { defaultBucketStateDir } from '../../src-main/sync/destination/s3/s3-bucket';

const NO_ENV = {};

function configError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(DestinationError);
    expect((e as DestinationError).kind).toBe('config');
    return (e as Error).message;
  }
  throw new Error('expected a config error');
}

describe('parseDestination', () => {
  it('anything but s3:// is a folder path, kept as given', () => {
    expect(parseDestination('/data/set', { env: NO_ENV })).toEqual({ kind: 'folder', path: '/data/set' });
    expect(parseDestination('relative/dir', { env: NO_ENV })).toEqual({ kind: 'folder', path: 'relative/dir' });
    expect(parseDestination('s3-like-folder', { env: NO_ENV })).toEqual({ kind: 'folder', path: 's3-like-folder' });
    expect(configError(() => parseDestination(' ', { env: NO_ENV }))).toMatch(/empty/);
  });

  it('s3://BUCKET/PREFIX: the prefix loses leading and trailing slashes; AWS, us-east-1, virtual-hosted by default', () => {
    expect(parseDestination('s3://my-bucket/datasets/run1/', { env: NO_ENV })).toEqual({
      kind: 'bucket',
      bucket: 'my-bucket',
      prefix: 'datasets/run1',
      region: 'us-east-1',
      forcePathStyle: false,
    });
    expect(parseDestination('S3://my.bucket//a', { env: NO_ENV })).toMatchObject({ bucket: 'my.bucket', prefix: 'a' });
  });

  it('refuses a bucket without a prefix, bad bucket names and prefixes with empty, . or .. parts', () => {
    expect(configError(() => parseDestination('s3://my-bucket', { env: NO_ENV }))).toMatch(/names a whole bucket: give a prefix, s3:\/\/my-bucket\/PREFIX/);
    expect(configError(() => parseDestination('s3://my-bucket/', { env: NO_ENV }))).toMatch(/whole bucket/);
    expect(configError(() => parseDestination('s3://My_Bucket/x', { env: NO_ENV }))).toMatch(/"My_Bucket" is not a valid bucket name/);
    expect(configError(() => parseDestination('s3:///x', { env: NO_ENV }))).toMatch(/not a valid bucket name/);
    expect(configError(() => parseDestination('s3://my-bucket/a//b', { env: NO_ENV }))).toMatch(/empty, '.' or '..' part/);
    expect(configError(() => parseDestination('s3://my-bucket/a/../b', { env: NO_ENV }))).toMatch(/empty, '.' or '..' part/);
    for (const ok of ['abc', 'a.b-c', 'x'.repeat(63), '1bucket']) expect(isValidBucketName(ok)).toBe(true);
    for (const bad of ['ab', 'x'.repeat(64), '-abc', 'abc-', 'a..b', '192.168.1.1', 'ABC', 'a_b', 'xn--abc']) expect(isValidBucketName(bad)).toBe(false);
  });

  it('the endpoint: --s3-endpoint, else AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL; the region from AWS_REGION', () => {
    const env = { AWS_ENDPOINT_URL_S3: 'https://s3.example.org', AWS_ENDPOINT_URL: 'https://all.example.org', AWS_REGION: 'eu-central-1' };
    expect(parseDestination('s3://b-1/p', { env, endpoint: 'https://explicit.example.org/' })).toMatchObject({ endpoint: 'https://explicit.example.org', region: 'eu-central-1' });
    expect(parseDestination('s3://b-1/p', { env })).toMatchObject({ endpoint: 'https://s3.example.org', forcePathStyle: false });
    expect(parseDestination('s3://b-1/p', { env: { AWS_ENDPOINT_URL: 'https://all.example.org' } })).toMatchObject({ endpoint: 'https://all.example.org', region: 'us-east-1' });
    expect(parseDestination('s3://b-1/p', { env: NO_ENV })).not.toHaveProperty('endpoint');
  });

  it('path-style addressing for IP and loopback endpoints, and on request', () => {
    for (const endpoint of ['http://127.0.0.1:7480', 'http://localhost:9000', 'https://10.1.2.3', 'http://[::1]:7480']) {
      expect(parseDestination('s3://b-1/p', { env: NO_ENV, endpoint })).toMatchObject({ forcePathStyle: true });
    }
    expect(parseDestination('s3://b-1/p', { env: NO_ENV, endpoint: 'https://s3.example.org' })).toMatchObject({ forcePathStyle: false });
    expect(parseDestination('s3://b-1/p', { env: NO_ENV, endpoint: 'https://s3.example.org', forcePathStyle: true })).toMatchObject({ forcePathStyle: true });
  });

  it('refuses endpoints that are not a bare http(s) origin, without echoing credentials', () => {
    expect(configError(() => parseDestination('s3://b-1/p', { env: NO_ENV, endpoint: 'not a url' }))).toMatch(/is not a URL/);
    expect(configError(() => parseDestination('s3://b-1/p', { env: NO_ENV, endpoint: 'ftp://x.org' }))).toMatch(/must start with https:\/\//);
    expect(configError(() => parseDestination('s3://b-1/p', { env: NO_ENV, endpoint: 'https://s3.example.org/bucket' }))).toMatch(/bare origin: remove "\/bucket"/);
    // Plain http only to this computer: a remote host is refused before any request, naming https.
    for (const remote of ['http://s3.example.org', 'http://10.1.2.3:7480', 'HTTP://S3.EXAMPLE.ORG']) {
      expect(configError(() => parseDestination('s3://b-1/p', { env: NO_ENV, endpoint: remote }))).toMatch(/must start with https:\/\/: plain http:\/\/ is allowed only for this computer/);
    }
    expect(configError(() => parseDestination('s3://b-1/p', { env: { AWS_ENDPOINT_URL: 'http://s3.example.org' } }))).toMatch(/must start with https/);
    const m = configError(() => parseDestination('s3://b-1/p', { env: NO_ENV, endpoint: 'https://AKIA:topsecret@s3.example.org' }));
    expect(m).toMatch(/must not contain credentials/);
    expect(m).not.toContain('topsecret');
  });

  it('consents and withdrawn data go beside the prefix, never under it', () => {
    const spec = parseDestination('s3://b-1/team/data/', { env: NO_ENV });
    expect(siblingSpec(spec, '.consents')).toMatchObject({ bucket: 'b-1', prefix: 'team/data.consents' });
  });
});

describe('bucket state folder and openBucket', () => {
  it('lives under $XDG_STATE_HOME (else ~/.local/state)/dataset-sync/buckets/<hash of endpoint, bucket, prefix>', () => {
    const spec = { kind: 'bucket' as const, bucket: 'b-1', prefix: 'p', endpoint: 'http://127.0.0.1:7480' };
    const a = defaultBucketStateDir(spec, { XDG_STATE_HOME: '/xdg/state' });
    expect(a).toMatch(/^\/xdg\/state\/dataset-sync\/buckets\/[0-9a-f]{16}$/);
    expect(defaultBucketStateDir({ ...spec, prefix: 'q' }, { XDG_STATE_HOME: '/xdg/state' })).not.toBe(a);
    expect(defaultBucketStateDir({ ...spec, endpoint: 'http://127.0.0.1:7481' }, { XDG_STATE_HOME: '/xdg/state' })).not.toBe(a);
    expect(defaultBucketStateDir(spec, {})).toBe(path.join(os.homedir(), '.local', 'state', 'dataset-sync', 'buckets', path.basename(a)));
    const dest = openBucket(spec, { stateDir: '/tmp/elsewhere' });
    expect(dest.stateDir).toBe('/tmp/elsewhere');
    expect(dest.label).toBe('s3://b-1/p at http://127.0.0.1:7480');
    expect(dest.capabilities).toEqual({ freeSpace: false, checksSha256: false });
  });
});

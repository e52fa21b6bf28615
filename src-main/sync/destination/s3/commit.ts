// How a bucket upload ends in the store (upload.ts): committed, as one PutObject for a body of
// one part or less or by CompleteMultipartUpload of the parts sent (parts.ts), or aborted: an
// upload given up or replaced, and the uploads a killed sync left open (the bucket's cleanUp,
// s3-bucket.ts), so that no multipart upload stays open after a clean sync.
//
// The PUT carries x-amz-checksum-sha256, but Ceph 16 accepts a wrong one without a word
// (measured: a PUT with the SHA-256 of other bytes returns 200 and HEAD shows no checksum), so it
// is sent (stores that check it do) but not relied on: what makes sure of the bytes is the
// Content-MD5 it carries too (upload.ts's header).
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import type { ExpectedBody, ObjectInfo } from '../destination';
import type { BucketTarget } from './client';
import { isCode, s3Error } from './errors';
import { md5, unquote } from './etag';
import type { PartToComplete } from './parts';

/**
 * Puts `body` (the whole staged body) under `objectKey` with its user metadata sha256. The
 * object as stored when the store's ETag is the MD5 just sent; null when it says nothing usable
 * (then commit asks with a HEAD).
 */
export async function putWhole(target: BucketTarget, objectKey: string, key: string, expect: ExpectedBody, body: Buffer): Promise<ObjectInfo | null> {
  const sum = md5(body);
  const put = await target.client.send(
    new PutObjectCommand({
      Bucket: target.bucket,
      Key: objectKey,
      Body: body,
      ContentLength: body.length,
      ContentMD5: sum.base64,
      ChecksumSHA256: Buffer.from(expect.sha256, 'hex').toString('base64'),
      Metadata: { sha256: expect.sha256 },
    }),
  );
  const etag = unquote(put.ETag);
  return etag === sum.hex ? { key, size: body.length, stamp: etag, sha256: expect.sha256 } : null;
}

/** Completes the multipart upload `uploadId` of `objectKey` from `parts` (every part, in order). */
export async function completeUpload(target: BucketTarget, objectKey: string, uploadId: string | undefined, parts: PartToComplete[]): Promise<void> {
  if (parts.some((p) => p.ETag === undefined)) {
    // Non-MD5 ETags: ask the store for them (they belong to parts sent in this very attempt).
    const listed = new Map<number, string>();
    let marker: string | undefined;
    do {
      const page = await target.client.send(new ListPartsCommand({ Bucket: target.bucket, Key: objectKey, UploadId: uploadId, PartNumberMarker: marker }));
      for (const p of page.Parts ?? []) listed.set(p.PartNumber ?? 0, p.ETag ?? '');
      marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
    } while (marker);
    for (const p of parts) p.ETag ??= listed.get(p.PartNumber);
  }
  await target.client.send(
    new CompleteMultipartUploadCommand({ Bucket: target.bucket, Key: objectKey, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
  );
}

/** Aborts the multipart upload `uploadId` of `objectKey` (the upload of `key`); one already gone is fine. */
export async function abortUpload(target: BucketTarget, objectKey: string, uploadId: string, key: string): Promise<void> {
  try {
    await target.client.send(new AbortMultipartUploadCommand({ Bucket: target.bucket, Key: objectKey, UploadId: uploadId }));
  } catch (e) {
    if (!isCode(e, 'NoSuchUpload')) throw s3Error(e, target.where, `abort the upload of ${key}`);
  }
}

/** Aborts every multipart upload of an object under `prefix` whose id is not in `keep`; the SDK's errors are thrown as they are. */
export async function abortUploadsExcept(target: BucketTarget, prefix: string, keep: ReadonlySet<string>): Promise<void> {
  let keyMarker: string | undefined;
  let idMarker: string | undefined;
  do {
    const page = await target.client.send(
      new ListMultipartUploadsCommand({ Bucket: target.bucket, Prefix: prefix, KeyMarker: keyMarker, UploadIdMarker: idMarker }),
    );
    for (const u of page.Uploads ?? []) {
      if (!u.Key || !u.UploadId || keep.has(u.UploadId)) continue;
      try {
        await target.client.send(new AbortMultipartUploadCommand({ Bucket: target.bucket, Key: u.Key, UploadId: u.UploadId }));
      } catch (e) {
        if (!isCode(e, 'NoSuchUpload')) throw e;
      }
    }
    keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
    idMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
  } while (keyMarker);
}

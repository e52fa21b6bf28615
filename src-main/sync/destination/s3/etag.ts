// ETags and Content-MD5: how this client knows what a bucket stores. A Content-MD5 sent with a
// body is checked by S3 and RGW (a wrong one is refused with 400 BadDigest, measured), and the
// ETag of an object made by one PUT, or of a part, is the MD5 of its bytes (except where the
// store encrypts with its own keys: SSE-KMS).
import { createHash } from 'node:crypto';

/** The MD5 of `bytes`: hex (as an ETag shows it) and base64 (as Content-MD5 carries it). */
export function md5(bytes: Buffer): { hex: string; base64: string } {
  const d = createHash('md5').update(bytes).digest();
  return { hex: d.toString('hex'), base64: d.toString('base64') };
}

/** An ETag without the quotes S3 puts around it ('' when there is none). */
export function unquote(etag: string | undefined): string {
  return (etag ?? '').replace(/^"|"$/g, '');
}

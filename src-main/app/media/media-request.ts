// The request handling behind the app's media URLs, without Electron: the Electron shell's
// custom protocol (dataset-media://) and the web bridge's /media/<token>/ both pass requests
// here. A URL names a collection, a set id and a file name; the file served is the one the
// dataset's listing names for them (verified-files.ts), never a path taken from the URL.
//
//   <prefix>/video/<collectionId>/<setId>/<filename>   the file, with Range support
//   <prefix>/thumb/<collectionId>/<setId>/<filename>   its thumbnail (JPEG, or an SVG placeholder)
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { findVerifiedFile } from './verified-files';
import { PLACEHOLDER_SVG, type Thumbnailer } from './thumbnails';

export const MEDIA_SCHEME = 'dataset-media';
/** The Electron shell's base URL (a standard scheme needs a host). */
export const ELECTRON_MEDIA_BASE = `${MEDIA_SCHEME}://local/`;

export interface MediaRequest {
  url: string;
  method?: string;
  headers: { range?: string | null | undefined };
}

export interface MediaResponse {
  status: number;
  headers: Record<string, string>;
  /** null for HEAD and for refusals with a short text (then `text`). */
  body: Readable | null;
}

export interface MediaHandlerDeps {
  /** The dataset folder of a collection of the active account; null when none is chosen (or it is a bucket). */
  datasetFolder(collectionId: number): string | null;
  thumbnails: Thumbnailer;
  /** The path the media URLs start with ('/' in Electron, '/media/<token>/' on the bridge). */
  pathPrefix?: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.mkv': 'video/x-matroska',
  '.avi': 'video/x-msvideo',
};

export function mediaContentType(filename: string): string {
  return CONTENT_TYPES[path.extname(filename).toLowerCase()] ?? 'application/octet-stream';
}

const COMMON = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' };

function text(status: number, message: string, extra: Record<string, string> = {}): MediaResponse {
  return { status, headers: { ...COMMON, 'Content-Type': 'text/plain; charset=utf-8', ...extra }, body: Readable.from([Buffer.from(message)]) };
}

/**
 * A single byte range of a file of `size` bytes (RFC 9110 §14): {start, end} inclusive,
 * 'unsatisfiable' (answer 416), or null (no usable Range: answer the whole file, as the RFC lets
 * a server do with several ranges or a header it cannot parse).
 */
export function parseRange(header: string | null | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null;
  const [, from = '', to = ''] = m;
  if (from === '' && to === '') return null;
  if (from === '') {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  if (start >= size) return 'unsatisfiable';
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (end < start) return null; // "bytes=5-2" is not a valid range: ignored
  return { start, end };
}

interface Target {
  kind: 'video' | 'thumb';
  collectionId: number;
  setId: number;
  filename: string;
}

/** The URL's parts, or null when it is not one of ours. Every part is checked; the file name is decoded once. */
function parseTarget(url: string, prefix: string): Target | null {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return null;
  }
  if (!pathname.startsWith(prefix)) return null;
  const parts = pathname.slice(prefix.length).split('/');
  if (parts.length !== 4) return null;
  const [kind, collection, set, encodedName = ''] = parts;
  if ((kind !== 'video' && kind !== 'thumb') || !/^[1-9]\d{0,15}$/.test(collection ?? '') || !/^[1-9]\d{0,15}$/.test(set ?? '')) return null;
  let filename: string;
  try {
    filename = decodeURIComponent(encodedName);
  } catch {
    return null;
  }
  return { kind, collectionId: Number(collection), setId: Number(set), filename };
}

export function createMediaHandler(deps: MediaHandlerDeps): (request: MediaRequest) => Promise<MediaResponse> {
  const prefix = deps.pathPrefix ?? '/';
  return async (request) => {
    const method = (request.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'HEAD') return text(405, 'Only GET and HEAD.', { Allow: 'GET, HEAD' });
    const target = parseTarget(request.url, prefix);
    if (!target) return text(404, 'Not a dataset file.');
    const dest = deps.datasetFolder(target.collectionId);
    if (!dest) return text(404, 'No dataset folder is chosen for this collection.');
    const found = await findVerifiedFile(dest, target.setId, target.filename);
    // One answer for every refusal: a caller learns nothing about what exists on the disk.
    if (!found.ok) return text(404, 'Not a verified file of this dataset.');
    const file = found.file;
    const head = method === 'HEAD';

    if (target.kind === 'thumb') {
      const thumb = await deps.thumbnails.get(dest, file);
      if (thumb.kind === 'placeholder') {
        return { status: 200, headers: { ...COMMON, 'Content-Type': 'image/svg+xml', 'X-Thumbnail': thumb.why }, body: head ? null : Readable.from([Buffer.from(PLACEHOLDER_SVG)]) };
      }
      return { status: 200, headers: { ...COMMON, 'Content-Type': 'image/jpeg' }, body: head ? null : createReadStream(thumb.path) };
    }

    const size = file.sizeBytes;
    const headers = { ...COMMON, 'Content-Type': mediaContentType(file.filename), 'Accept-Ranges': 'bytes' };
    const range = parseRange(request.headers.range, size);
    if (range === 'unsatisfiable') return text(416, 'Range not satisfiable.', { 'Content-Range': `bytes */${size}` });
    if (range === null) {
      return { status: 200, headers: { ...headers, 'Content-Length': String(size) }, body: head || size === 0 ? null : createReadStream(file.absPath, { start: 0, end: size - 1 }) };
    }
    return {
      status: 206,
      headers: { ...headers, 'Content-Length': String(range.end - range.start + 1), 'Content-Range': `bytes ${range.start}-${range.end}/${size}` },
      body: head ? null : createReadStream(file.absPath, { start: range.start, end: range.end }),
    };
  };
}

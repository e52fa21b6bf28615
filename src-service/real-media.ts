// Which real clip each file serves, and the listing that goes with it: the file's name,
// content type, size, SHA-256 and `media` are the clip's own, so the listing is true for the
// bytes served (until a media fault makes it lie on purpose, admin/media-faults.ts).

import { clipBodySha256, clipBodySize, type Clip, type ClipLibrary } from './clips';
import { fileNameFor, type DemoData } from './demo-data';
import type { CollectionRecord, FileRecord } from './model';
import { mixSeed } from './prng';

/** Serves `clip` from `file`, with the listing the clip's (the file's version is part of its stamp). */
export function putClip(file: FileRecord, clip: Clip, seed: number): void {
  file.clip = clip;
  file.diskPath = '';
  file.filename = fileNameFor(file.setId, file.slotIndex, clip.ext);
  file.contentType = clip.contentType;
  file.size = clipBodySize(clip);
  file.sha256 = clipBodySha256(clip, file.id, file.version, seed);
  // Shared with the clip (serialize copies it); a lying listing gets an object of its own.
  file.media = clip.media;
}

/** A clean clip in one of the collection's formats, fixed by the seed and the file id. */
export function cleanClipFor(library: ClipLibrary, collection: CollectionRecord, fileId: number, seed: number): Clip {
  const pool = library.clean(collection.mediaRules.formats);
  const clip = pool[mixSeed(seed, fileId, 0xc119) % pool.length];
  if (!clip) throw new Error(`no demo clip in the formats of collection ${collection.id}: ${collection.mediaRules.formats.join(', ')}`);
  return clip;
}

/** Every seeded file gets a clean clip of its collection. */
export function assignClips(data: DemoData, library: ClipLibrary, seed: number): void {
  const collections = new Map(data.collections.map((c) => [c.id, c]));
  for (const collection of data.collections) collection.fileSize = null;
  for (const set of data.sets) {
    const collection = collections.get(set.collectionId);
    if (!collection) continue;
    for (const file of set.files) putClip(file, cleanClipFor(library, collection, file.id, seed), seed);
  }
}

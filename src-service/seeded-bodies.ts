// The bodies of the seeded files when a size was asked for (ServiceOptions.fileSize): written
// once into the data dir's cache and served from disk. Synthetic bodies by default; with
// `videoBodies`, the main collection's files are real videos of that size (video-bodies.ts)
// and their listing's `media` is the clip's, so the listing stays true for the bytes served.
// The other collections keep synthetic bodies of their own sizes either way.

import type { Hash } from 'node:crypto';
import type { ClipLibrary } from './clips';
import type { DemoData } from './demo-data';
import type { BodySpec, BodyWriter, MediaStore } from './media-store';
import type { FileRecord } from './model';
import { mixSeed } from './prng';
import { clipHashState, videoClipFor, writeVideoBody, type VideoBodiesInfo } from './video-bodies';

interface SeedOptions {
  seed: number;
  sets: number;
  fileSize: number;
  slots: number;
}

/**
 * Writes (or reuses) every seeded body and records its path and sha256 on the file records.
 * `videos`: the main collection's files get real video bodies (its clip made or found in
 * `dataDir`; `clips` for the padded fallback); returns what they are.
 */
export async function writeSeededBodies(data: DemoData, media: MediaStore, o: SeedOptions, videos?: { dataDir: string; clips: ClipLibrary | null }): Promise<VideoBodiesInfo | undefined> {
  const video = videos && (await videoClipFor(videos.dataDir, o.fileSize, videos.clips));
  const mainId = data.collectionsByClient.get(data.clients[0]?.id ?? -1)?.[0];
  const files = data.sets.flatMap((s) => s.files);
  const videoFiles = video ? data.sets.filter((s) => s.collectionId === mainId).flatMap((s) => s.files) : [];
  const isVideo = new Set(videoFiles);
  const synthetic = files.filter((f) => !isVideo.has(f));
  const specs: BodySpec[] = synthetic.map((f) => ({ name: `f${f.id}.bin`, size: f.size, variant: mixSeed(o.seed, f.id, 0) }));
  const cacheKey = `seed${o.seed}-sets${o.sets}-size${o.fileSize}-slots${o.slots}`;
  record(synthetic, await media.prepareCached(cacheKey, specs), 'bin');
  if (!video) return undefined;

  const byName = new Map(videoFiles.map((f) => [`f${f.id}.mp4`, f]));
  // The clip's hash state is read only when a body is missing from the cache (a warm start reads no clip).
  let clipHash: Promise<Hash> | undefined;
  const fill: BodyWriter = async (file, spec) => {
    const f = byName.get(spec.name);
    if (!f) throw new Error(`no seeded file for body ${spec.name}`);
    clipHash ??= clipHashState(video);
    return writeVideoBody(file, video, await clipHash, spec.size, stampText(f, o.seed));
  };
  const videoSpecs: BodySpec[] = videoFiles.map((f) => ({ name: `f${f.id}.mp4`, size: f.size, variant: mixSeed(o.seed, f.id, 0) }));
  // The clip's own hash in the key: a clip made again (another ffmpeg) never meets bodies cut from the old one.
  const videoKey = `video-${video.sha256.slice(0, 16)}-${cacheKey}`;
  record(videoFiles, await media.prepareCached(videoKey, videoSpecs, fill), 'mp4');
  for (const f of videoFiles) f.media = { ...video.media };
  return { source: video.source, clipBytes: video.size, fileSize: o.fileSize, media: video.media };
}

/** The text each body's stamp box holds: names the file, so every body differs (as the demo clips' stamps do, clips.ts). */
function stampText(file: FileRecord, seed: number): string {
  return `dataset-sync video body ${file.id} v${file.version} seed ${seed}`;
}

function record(files: FileRecord[], bodies: Map<string, { path: string; sha256: string }>, ext: string): void {
  for (const file of files) {
    const body = bodies.get(`f${file.id}.${ext}`);
    if (!body) throw new Error(`media body for file ${file.id} was not written`);
    file.diskPath = body.path;
    file.sha256 = body.sha256;
  }
}

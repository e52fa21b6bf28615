// A container's headers read from an object of the destination, for files the media check did not
// see stream past (media-stage.ts): the reader says where its next needed byte is (wants()), and
// reading starts again there when that is far ahead, so media data is skipped, not read (a folder
// seeks, a bucket asks a Range). No child process and no local copy of a bucket's object.
import type { Destination } from '../destination/destination';
import { createContainerReader, type HeaderProbe } from './container/container-reader';

/** Chunks asked for: headers sit in the first tens of kB, or a box at the end. */
const CHUNK_BYTES = 64 * 1024;
/** A wanted byte this far past the stream's position is reached by a new read from there, not by reading on. */
const SEEK_AFTER_BYTES = 256 * 1024;
/** New reads per file at most: a file whose headers send the reader back and forth more often is not read on. */
const MAX_READS = 64;

export async function readHeaders(dest: Destination, key: string, size: number, signal: AbortSignal): Promise<HeaderProbe> {
  const reader = createContainerReader();
  for (let reads = 0; !reader.done && reads < MAX_READS && !signal.aborted; reads++) {
    const start = reader.wants();
    if (start === null || start >= size) break;
    let position = start;
    for await (const chunk of dest.read(key, { start, chunkBytes: CHUNK_BYTES })) {
      reader.push(chunk, position);
      position += chunk.length;
      const next = reader.wants();
      // Done, or the next byte wanted is far ahead: this read stops (its stream is closed).
      if (next === null || next > position + SEEK_AFTER_BYTES || signal.aborted) break;
    }
    if (position >= size) break;
  }
  return reader.finish(size);
}

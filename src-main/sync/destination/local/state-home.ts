// The local folder where the engine keeps its state for a destination that is not a local folder
// itself (Destination.stateDir of the in-memory destination; a bucket makes its own in
// s3-bucket.ts): made, with its parents, when the destination is prepared.
import { promises as fs } from 'node:fs';
import { DestinationError } from '../destination';

/** Makes `dir` (and its parents), readable by the owner only; DestinationError 'io' naming `forWhat` when it cannot be made. */
export async function ensureStateHome(dir: string, forWhat: string): Promise<void> {
  try {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new DestinationError('io', `Cannot create the local state folder ${dir} for ${forWhat}: ${(e as Error).message}`, (e as NodeJS.ErrnoException).code);
  }
}

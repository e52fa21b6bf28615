// The hash an attempt feeds when its file has stages' taps (stages/pipeline.ts): FileTries.newHash
// wraps the attempt's Sha256Stream in it, so the taps see exactly the bytes the hash sees and start
// over with it. The wrapper is made only for a job with taps: without stages a body is hashed
// through the bare Sha256Stream; with them a chunk costs one more method call, and a property read
// once the taps have seen enough.
import type { Sha256Stream } from '../sha256-stream';
import type { StageTaps } from '../stages/pipeline';

/**
 * A hash whose every byte also goes to the stages' taps (stages/pipeline.ts), in the same call: the
 * media check reads a container's headers from the bytes as they are hashed, a tap that has seen
 * enough costs a property read per chunk.
 */
export class TappedHash implements Sha256Stream {
  constructor(
    private readonly hash: Sha256Stream,
    private readonly taps: StageTaps,
  ) {}

  update(chunk: Buffer): void {
    this.hash.update(chunk);
    if (!this.taps.done) this.taps.push(chunk);
  }
  get backlogged(): boolean {
    return this.hash.backlogged;
  }
  drained(): Promise<void> {
    return this.hash.drained();
  }
  digest(): Promise<string> {
    return this.hash.digest();
  }
  digestNow(): string | undefined {
    return this.hash.digestNow();
  }
  discard(): void {
    this.hash.discard();
  }
}

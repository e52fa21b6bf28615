// The bandwidth limit (`--bwlimit`, SyncOptions.bwlimitBytesPerSecond): one token bucket shared
// by every transfer of a sync, so the cap is on the total rate. Bytes are paid for after they
// arrive (a chunk is already read when it is counted); a transfer in debt keeps its socket
// paused until the bucket has refilled enough, which is how the cap holds on average.
import type { RateLimiter } from './accounting';
import { systemClock, type Clock } from './clock';

export class TokenBucket implements RateLimiter {
  /** The bucket's level in bytes; negative is debt. */
  private tokens: number;
  private updatedAt: number;

  /**
   * `burstBytes`: what may pass at once after a quiet spell (the bucket's size). A tenth of a
   * second's worth by default, at least 16 KiB, so the cap holds over short windows too.
   */
  constructor(
    readonly bytesPerSecond: number,
    private readonly clock: Clock = systemClock,
    private readonly burstBytes = Math.max(16 * 1024, bytesPerSecond / 10),
  ) {
    if (!(bytesPerSecond > 0) || !Number.isFinite(bytesPerSecond)) throw new RangeError(`a rate limit must be a positive number of bytes per second, got ${bytesPerSecond}`);
    this.tokens = this.burstBytes;
    this.updatedAt = clock.now();
  }

  consumed(bytes: number): Promise<void> | undefined {
    const now = this.clock.now();
    this.tokens = Math.min(this.burstBytes, this.tokens + ((now - this.updatedAt) / 1000) * this.bytesPerSecond);
    this.updatedAt = now;
    this.tokens -= bytes;
    if (this.tokens >= 0) return undefined;
    // Wait until the debt (shared by every transfer) is paid back at the capped rate.
    const waitMs = (-this.tokens / this.bytesPerSecond) * 1000;
    return this.clock.sleep(waitMs).catch(() => undefined);
  }
}

/** A limiter for `bytesPerSecond` (undefined or 0: none). */
export function rateLimiterFor(bytesPerSecond: number | undefined, clock: Clock = systemClock): RateLimiter | undefined {
  return bytesPerSecond === undefined || bytesPerSecond === 0 ? undefined : new TokenBucket(bytesPerSecond, clock);
}

const UNITS: Record<string, number> = { b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4, p: 1024 ** 5 };

/**
 * rclone's `--bwlimit` syntax for one rate: a number with an optional suffix B, K, M, G, T or P
 * (powers of 1024, any case, optionally followed by `i`/`iB`/`B`: `4M`, `4MiB`, `1.5m`); a plain
 * number is KiB/s as in rclone; `off` or `0` means no limit (undefined). rclone's timetables and
 * `up:down` pairs are not supported. Throws a RangeError naming the accepted forms.
 */
export function parseBwlimit(text: string): number | undefined {
  const t = text.trim();
  if (/^off$/i.test(t)) return undefined;
  const m = /^(\d+(?:\.\d+)?)(?:([bkmgtp])(?:i?b)?)?$/i.exec(t);
  if (!m) throw new RangeError(`--bwlimit must be a rate like 4M (4 MiB/s), 500k (500 KiB/s), 1024B (bytes/s), a plain number of KiB/s, or off; got "${text}"`);
  const bytes = Math.floor(Number(m[1]) * UNITS[(m[2] ?? 'k').toLowerCase()]!);
  if (bytes === 0) {
    if (Number(m[1]) === 0) return undefined;
    throw new RangeError(`--bwlimit ${text} is under one byte per second`);
  }
  if (!Number.isSafeInteger(bytes)) throw new RangeError(`--bwlimit ${text} is too large`);
  return bytes;
}

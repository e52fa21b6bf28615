// Our CLI's --json events written to a file and read back, for runs where this process must not
// take CPU from the run it measures (bench scale scenario). Reading the events through a pipe as
// they arrive cost this process about 1 s of CPU per 10,000 sets (18 MB in some 5,000 small writes),
// on the same two cores as the run; here the file is only looked at every POLL_MS for one marker
// while the run lasts, and tallied after the exit.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const POLL_MS = 100;
const READ_BYTES = 4 * 1024 * 1024;

export class EventFile {
  private constructor(
    private readonly file: string,
    private readonly handle: fs.FileHandle,
  ) {}

  static async create(): Promise<EventFile> {
    const file = path.join(os.tmpdir(), `bench-events-${process.pid}-${Math.random().toString(36).slice(2)}.jsonl`);
    return new EventFile(file, await fs.open(file, 'w+'));
  }

  /** The descriptor to give the child as its stdout. */
  get fd(): number {
    return this.handle.fd;
  }

  /** Calls `seen` with performance.now() once `marker` shows up in the file (looked for every POLL_MS); the returned function stops looking. */
  watch(marker: string, seen: (atMs: number) => void): () => void {
    const needle = Buffer.from(marker);
    const buf = Buffer.alloc(READ_BYTES);
    let offset = 0;
    let reading = false;
    const timer = setInterval(() => {
      if (reading) return;
      reading = true;
      void (async () => {
        for (;;) {
          const { bytesRead } = await this.handle.read(buf, 0, buf.length, offset);
          if (bytesRead === 0) return;
          if (buf.subarray(0, bytesRead).indexOf(needle) !== -1) {
            clearInterval(timer);
            seen(performance.now());
            return;
          }
          // The next read starts early enough to catch a marker cut by this read's end.
          offset += Math.max(1, bytesRead - needle.length + 1);
          if (bytesRead < buf.length) return;
        }
      })().finally(() => (reading = false));
    }, POLL_MS);
    return () => clearInterval(timer);
  }

  /** Every line of the file, in order, in chunks of READ_BYTES (the last line needs no newline). */
  async *lines(): AsyncGenerator<Buffer> {
    const buf = Buffer.alloc(READ_BYTES);
    let offset = 0;
    let rest: Buffer | undefined;
    for (;;) {
      const { bytesRead } = await this.handle.read(buf, 0, buf.length, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
      const chunk = rest === undefined ? buf.subarray(0, bytesRead) : Buffer.concat([rest, buf.subarray(0, bytesRead)]);
      let start = 0;
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
        yield chunk.subarray(start, nl);
        start = nl + 1;
      }
      rest = start < chunk.length ? Buffer.from(chunk.subarray(start)) : undefined;
    }
    if (rest !== undefined && rest.length > 0) yield rest;
  }

  async remove(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await fs.rm(this.file, { force: true });
  }
}

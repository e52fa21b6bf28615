// Whether a Debian media tool (ffmpeg, ffprobe) can run here: tests that need one skip, saying
// why, where it is absent.
import { spawnSync } from 'node:child_process';

export function toolPresent(name: 'ffmpeg' | 'ffprobe'): boolean {
  return spawnSync(name, ['-hide_banner', '-version'], { stdio: 'ignore' }).status === 0;
}

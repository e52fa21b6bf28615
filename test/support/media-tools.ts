// Debian's media tools (ffmpeg, ffprobe) for the tests: whether one can run here (tests that need
// one skip, saying why, where it is absent), and ffprobe's reading of a file's first video stream,
// the independent answer the service's bodies and the engine's header reader are held to.
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';

export function toolPresent(name: 'ffmpeg' | 'ffprobe'): boolean {
  return spawnSync(name, ['-hide_banner', '-version'], { stdio: 'ignore' }).status === 0;
}

/** What ffprobe says of a file's first video stream, rounded as the listing is (3 decimals); duration null where it says N/A. */
export interface FfprobeVideo {
  width: number;
  height: number;
  fps: number;
  duration: number | null;
  codec: string;
  formatName: string;
}

export async function ffprobeVideo(file: string): Promise<FfprobeVideo> {
  const args = ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name,width,height,r_frame_rate:format=duration,format_name', '-of', 'json', file];
  const { stdout } = await promisify(execFile)('ffprobe', args);
  const out = JSON.parse(stdout) as {
    streams?: Array<{ codec_type?: string; codec_name?: string; width?: number; height?: number; r_frame_rate?: string }>;
    format?: { duration?: string; format_name?: string };
  };
  const video = out.streams?.find((s) => s.codec_type === 'video');
  if (!video) throw new Error(`${file}: no video stream`);
  const [num, den] = (video.r_frame_rate ?? '0/1').split('/').map(Number) as [number, number];
  const duration = Number(out.format?.duration);
  return {
    width: video.width ?? 0,
    height: video.height ?? 0,
    fps: Math.round((num / (den || 1)) * 1000) / 1000,
    duration: Number.isFinite(duration) ? Math.round(duration * 1000) / 1000 : null,
    codec: video.codec_name ?? '',
    formatName: out.format?.format_name ?? '',
  };
}

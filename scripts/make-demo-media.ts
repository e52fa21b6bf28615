// `npx tsx scripts/make-demo-media.ts`: regenerates the reference service's demo videos in
// src-service/media/ with Debian's ffmpeg from its test sources, and the sidecar clips.json
// holding what ffprobe says of each (width, height, fps, duration, codec) plus its size and
// SHA-256. The files are committed, so the service and the tests never need ffmpeg; run this
// only to change them (the output is bit-exact for one ffmpeg version, not across versions).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'src-service', 'media');

type Role = 'clean' | 'too_small' | 'too_short' | 'wrong_format';
type Container = 'mp4' | 'mov' | 'webm' | 'matroska' | 'avi';

interface ClipSpec {
  name: string;
  role: Role;
  container: Container;
  /** lavfi video source, e.g. testsrc. */
  source: string;
  width: number;
  height: number;
  fps: number;
  seconds: number;
  codec: 'h264' | 'vp9' | 'mpeg4';
  /** Add a sine tone as an audio track. */
  tone?: number;
}

const EXT: Record<Container, string> = { mp4: 'mp4', mov: 'mov', webm: 'webm', matroska: 'mkv', avi: 'avi' };
const CONTENT_TYPE: Record<Container, string> = { mp4: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm', matroska: 'video/x-matroska', avi: 'video/x-msvideo' };

// Clean clips satisfy every demo collection's media_rules (320x240 or more, 24 fps or more,
// 2 to 120 s); the others break one rule each.
const CLIPS: ClipSpec[] = [
  { name: 'clean-testsrc-25fps', role: 'clean', container: 'mp4', source: 'testsrc', width: 320, height: 240, fps: 25, seconds: 3, codec: 'h264', tone: 440 },
  { name: 'clean-smptebars-30fps', role: 'clean', container: 'mp4', source: 'smptebars', width: 352, height: 288, fps: 30, seconds: 2, codec: 'h264' },
  { name: 'clean-testsrc2-24fps', role: 'clean', container: 'mov', source: 'testsrc2', width: 320, height: 240, fps: 24, seconds: 3, codec: 'h264' },
  { name: 'clean-smptehdbars-25fps', role: 'clean', container: 'mov', source: 'smptehdbars', width: 384, height: 216 + 24, fps: 25, seconds: 2, codec: 'h264', tone: 660 },
  { name: 'clean-testsrc2-30fps', role: 'clean', container: 'webm', source: 'testsrc2', width: 320, height: 240, fps: 30, seconds: 2, codec: 'vp9', tone: 523 },
  { name: 'clean-testsrc-25fps', role: 'clean', container: 'webm', source: 'testsrc', width: 320, height: 240, fps: 25, seconds: 3, codec: 'vp9' },
  { name: 'clean-smptebars-25fps', role: 'clean', container: 'matroska', source: 'smptebars', width: 320, height: 240, fps: 25, seconds: 3, codec: 'h264' },
  { name: 'clean-testsrc2-24fps', role: 'clean', container: 'matroska', source: 'testsrc2', width: 320, height: 240, fps: 24, seconds: 2, codec: 'vp9' },
  ...(['mp4', 'mov', 'webm', 'matroska'] as const).flatMap((container): ClipSpec[] => {
    const codec = container === 'webm' ? 'vp9' : 'h264';
    return [
      { name: 'too-small-160x120', role: 'too_small', container, source: 'testsrc', width: 160, height: 120, fps: 25, seconds: 3, codec },
      { name: 'too-short-1s', role: 'too_short', container, source: 'testsrc2', width: 320, height: 240, fps: 25, seconds: 1, codec },
    ];
  }),
  { name: 'wrong-format-mpeg4', role: 'wrong_format', container: 'avi', source: 'testsrc', width: 320, height: 240, fps: 25, seconds: 2, codec: 'mpeg4' },
];

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error) throw new Error(`${cmd}: ${r.error.message} (is ffmpeg installed? apt-get install ffmpeg)`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
}

function encode(spec: ClipSpec, file: string): void {
  const video = `${spec.source}=size=${spec.width}x${spec.height}:rate=${spec.fps}:duration=${spec.seconds}`;
  const args = ['-v', 'error', '-y', '-f', 'lavfi', '-i', video];
  if (spec.tone) args.push('-f', 'lavfi', '-i', `sine=frequency=${spec.tone}:duration=${spec.seconds}`);
  // Bit-exact and single-threaded, so a re-run with the same ffmpeg gives the same bytes.
  args.push('-threads', '1', '-fflags', '+bitexact', '-flags', '+bitexact', '-map_metadata', '-1');
  if (spec.codec === 'h264') args.push('-c:v', 'libx264', '-preset', 'slow', '-crf', '30', '-pix_fmt', 'yuv420p', '-x264-params', 'threads=1');
  else if (spec.codec === 'vp9') args.push('-c:v', 'libvpx-vp9', '-crf', '42', '-b:v', '0', '-deadline', 'good', '-cpu-used', '4', '-row-mt', '0');
  else args.push('-c:v', 'mpeg4', '-q:v', '12');
  if (spec.tone) args.push(...(spec.container === 'webm' ? ['-c:a', 'libopus', '-b:a', '16k'] : ['-c:a', 'aac', '-b:a', '24k']));
  if (spec.container === 'mp4' || spec.container === 'mov') args.push('-movflags', '+faststart');
  args.push(file);
  run('ffmpeg', args);
}

interface Probe {
  streams: Array<{ codec_type: string; codec_name: string; width: number; height: number; r_frame_rate: string }>;
  format: { duration: string };
}

function probe(file: string): { width: number; height: number; fps: number; duration: number; codec: string } {
  const out = JSON.parse(run('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name,width,height,r_frame_rate:format=duration', '-of', 'json', file])) as Probe;
  const video = out.streams.find((s) => s.codec_type === 'video');
  if (!video) throw new Error(`${file}: ffprobe found no video stream`);
  const [num, den] = video.r_frame_rate.split('/').map(Number) as [number, number];
  return {
    width: video.width,
    height: video.height,
    fps: Math.round((num / (den || 1)) * 1000) / 1000,
    duration: Math.round(Number(out.format.duration) * 1000) / 1000,
    codec: video.codec_name,
  };
}

mkdirSync(outDir, { recursive: true });
for (const old of readdirSync(outDir)) rmSync(path.join(outDir, old));
const clips = CLIPS.map((spec) => {
  const file = `${spec.name}.${EXT[spec.container]}`;
  const full = path.join(outDir, file);
  encode(spec, full);
  const bytes = readFileSync(full);
  const media = probe(full);
  return {
    file,
    role: spec.role,
    format: spec.container,
    content_type: CONTENT_TYPE[spec.container],
    ...media,
    size_bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
});
const ffmpegVersion = run('ffmpeg', ['-version']).split('\n')[0] ?? '';
writeFileSync(path.join(outDir, 'clips.json'), `${JSON.stringify({ generated_by: 'scripts/make-demo-media.ts', ffmpeg: ffmpegVersion, clips }, null, 2)}\n`);
const total = clips.reduce((n, c) => n + c.size_bytes, 0);
process.stderr.write(`${clips.length} clips, ${Math.round(total / 1024)} KiB, in ${path.relative(root, outDir)}\n`);

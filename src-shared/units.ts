// Sizes and rates as people read them, one convention for the window, the CLI and the README:
// binary units written KiB, MiB, GiB, TiB (1 MiB = 1,048,576 bytes), as rclone writes them, so
// `--bwlimit 10M` and the Settings field's "10" are the same 10 MiB/s the progress line shows.
// Pure code: used by the renderer (no Node there) and by main.

export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/**
 * Three significant figures (`96.0 MiB`, `1.50 GiB`, `512 KiB`), whole bytes below 1 KiB;
 * `–` for what is not a size (negative, NaN, infinite).
 */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '–';
  let unit = 0;
  let value = bytes;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${Math.round(value)} B`;
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  let text = value.toFixed(digits);
  // 1023.7 KiB rounds to "1024": say 1.00 MiB instead.
  if (Number(text) >= 1024 && unit < UNITS.length - 1) {
    unit++;
    text = (value / 1024).toFixed(2);
  }
  return `${text} ${UNITS[unit]}`;
}

export function formatRate(bytesPerSecond: number): string {
  return `${formatBytes(bytesPerSecond)}/s`;
}

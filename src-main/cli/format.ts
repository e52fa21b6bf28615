// Small text helpers for human output.

// Sizes: the one convention shared with the window (binary units, KiB/MiB/GiB).
export { formatBytes, formatRate } from '../../src-shared/units';

export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '--:--';
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const mm = String(m).padStart(2, '0');
  const ss = String(sec).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

export function bar(fraction: number, width: number): string {
  const f = Math.min(1, Math.max(0, fraction));
  const full = Math.round(f * width);
  return '#'.repeat(full) + '-'.repeat(width - full);
}

/** The key's leading characters only: enough to recognise it, never enough to use it. */
export function keyPrefix(key: string): string {
  return key.length <= 8 ? '…' : `${key.slice(0, 6)}…`;
}

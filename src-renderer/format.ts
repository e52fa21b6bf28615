// Display formatting only; no app logic here.

// Sizes and rates: the one convention shared with the CLI (binary units, KiB/MiB/GiB).
export { formatBytes, formatRate } from '../src-shared/units';

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '–';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** The spec leaves the deadline's type open (timestamp or date): show what parses, else the raw value. */
export function formatDeadline(deadline: string | null): string {
  if (deadline === null || deadline === '') return 'no deadline';
  const d = new Date(deadline);
  if (Number.isNaN(d.getTime())) return deadline;
  return d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

/** Prices are decimal strings in the API: shown as given, never via floating point. */
export function formatPrice(amount: string, currency: string): string {
  return `${amount} ${currency}`;
}

export function percent(done: number, total: number): number {
  if (total <= 0) return 0;
  return Math.max(0, Math.min(100, Math.floor((done / total) * 100)));
}

export function shortHash(sha256: string): string {
  return sha256.length > 12 ? `${sha256.slice(0, 12)}…` : sha256;
}

export function humanize(machineValue: string): string {
  const text = machineValue.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

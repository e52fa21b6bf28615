export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export const MB = 1e6;
export const MiB = 1024 * 1024;

export function fmt(n: number | undefined, digits = 2): string {
  if (n === undefined || Number.isNaN(n)) return 'n/a';
  return n.toFixed(digits);
}

// The media check's share of a sync's wall time (issue point 7: at most 10 % at any size). Every
// scenario runs ours with the product's defaults, the check on; the scenarios that measure its
// share also run "ours, media check off" (DATASET_SYNC_MEDIA_CHECK=off, the one way users turn it
// off), alternated with the default run in pairs of the same repetition, and report the median
// of the pairs' shares (on - off) / on. A pair shares the machine's state, so its difference is
// the check's cost rather than drift between runs minutes apart.
import type { TargetCheck } from './context';
import { fmt, median } from './stats';

/** The row name of a run with the check off: it says so, as every run that turns a default off must. */
export const OURS_CHECK_OFF = 'ours, media check off';
/** What that run adds to our CLI's environment. */
export const CHECK_OFF_ENV: Readonly<Record<string, string>> = { DATASET_SYNC_MEDIA_CHECK: 'off' };
/** The bound on the check's share of a sync. */
export const CHECK_SHARE_MAX = 0.1;

export interface CheckShare {
  /** Wall times in ms of the pairs, in repetition order, and each pair's share (on - off) / on. */
  pairs: Array<{ onMs: number; offMs: number; share: number }>;
  /** Median of the pairs' shares; NaN without a pair. */
  median: number;
}

/** Pairs the i-th run with the check on with the i-th with it off (the same repetition). */
export function checkShare(onMs: readonly number[], offMs: readonly number[]): CheckShare {
  const pairs = onMs.slice(0, offMs.length).map((on, i) => ({ onMs: on, offMs: offMs[i]!, share: (on - offMs[i]!) / on }));
  return { pairs, median: median(pairs.map((p) => p.share)) };
}

function pct(x: number): string {
  return `${fmt(x * 100, 1)} %`;
}

/** One line for a scenario's text: each pair and the median. */
export function checkShareLine(s: CheckShare): string {
  const pairs = s.pairs.map((p, i) => `pair ${i + 1}: ${fmt(p.onMs / 1000)} s on, ${fmt(p.offMs / 1000)} s off, ${pct(p.share)}`).join('; ');
  return `Media check's share of our sync's wall time, (on - off) / on in pairs of the same repetition (the check on is the default; "${OURS_CHECK_OFF}" sets DATASET_SYNC_MEDIA_CHECK=off): ${pairs}; median ${pct(s.median)}. A negative share is noise: the check cost less than the runs' spread.`;
}

export function checkShareTarget(scenario: string, s: CheckShare): TargetCheck {
  return {
    name: `${scenario} media check's share of the sync's wall time (median of ${s.pairs.length} pair(s))`,
    measured: pct(s.median),
    target: `<= ${pct(CHECK_SHARE_MAX)}`,
    met: s.median <= CHECK_SHARE_MAX,
  };
}

// What the media check found, in one sentence for the CLI and the window: files that break the
// collection's rules or disagree with the listing are said apart from files not checked yet
// (`unprobed`: the check was off, or the sync ended first), which are not known to break anything.
import type { SyncSummary } from './sync-events';

function files(n: number): string {
  return n === 1 ? '1 file' : `${n} files`;
}

/** The media check in words; '' when every file of the dataset is `ok` in media.csv. */
export function mediaCheckWords(s: Pick<SyncSummary, 'mediaProblems' | 'mediaUnprobed'>): string {
  const problems = s.mediaProblems ?? 0;
  const unprobed = Math.min(s.mediaUnprobed ?? 0, problems);
  const broken = problems - unprobed;
  const parts: string[] = [];
  if (broken > 0) parts.push(`${files(broken)} not as the collection's rules or the listing say`);
  if (unprobed > 0) parts.push(`${files(unprobed)} not checked yet (the check was off or cut short; the next sync checks them)`);
  return parts.length === 0 ? '' : `Media check: ${parts.join('; ')} (see media.csv)`;
}

/** The files the end of a sync still waits for (the `checking_media` phase): "3 files left". */
export function mediaLeftWords(n: number): string {
  return `${files(n)} left`;
}

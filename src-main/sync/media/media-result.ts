// The media check's result as the store keeps it (a stage result, stages/stage.ts): a MediaEntry
// (media-check.ts) as JSON under the stage name 'media', one per version (sha256) of a file. The
// store does not know this shape; this module writes and reads it.
import { MediaProbeSchema } from '../../../src-shared/delivery-api';
import type { StageResult } from '../state/records';
import type { MediaEntry } from './media-check';

export const MEDIA_STAGE = 'media';

export function resultOf(entry: MediaEntry): StageResult {
  return { sha256: entry.sha256, json: JSON.stringify(entry) };
}

/**
 * The entry a file's recorded result holds for its current version (`sha256`); undefined when it
 * has none (never checked, checked at another version, or a result that does not read as one).
 */
export function entryOf(result: StageResult | undefined, sha256: string): MediaEntry | undefined {
  if (!result || result.sha256 !== sha256) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(result.json);
  } catch {
    return undefined;
  }
  const e = parsed as Partial<MediaEntry> | null;
  if (!e || e.sha256 !== sha256 || (e.result !== 'probed' && e.result !== 'unreadable')) return undefined;
  if (e.result === 'unreadable') return { sha256, result: 'unreadable' };
  const probe = MediaProbeSchema.safeParse(e.probe);
  if (!probe.success) return undefined;
  const listed = MediaProbeSchema.safeParse(e.listed);
  return { sha256, result: 'probed', probe: probe.data, ...(listed.success ? { listed: listed.data } : {}) };
}

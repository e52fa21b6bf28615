// The media check's verdict on one file from its recorded result, in the shape the Sets tab shows
// (a FileVerdict the state's queries call from SQL: state/dataset-sets-query.ts), so the store's
// queries know nothing of the media check's results.
import type { FileMediaCheck } from '../../../src-shared/dataset-sets';
import type { FileVerdict } from '../state/dataset-sets-query';
import { judge, type MediaVerdict, type Rules } from './media-check';
import { entryOf, MEDIA_STAGE } from './media-result';

function checkOf(v: MediaVerdict): FileMediaCheck {
  const problems = [...(v.rules && v.rules !== 'ok' ? v.rules.split(';') : []), ...(v.listing && v.listing !== 'ok' ? v.listing.split(';').map((f) => `listing:${f}`) : [])];
  return { ok: problems.length === 0, problems };
}

/** Files judged against `rules` (collection.json's media_rules) as media.csv judges them; a result of an older version counts as none. */
export function mediaVerdict(rules: Rules): FileVerdict {
  return {
    stage: MEDIA_STAGE,
    check: (path, json, sha256) => checkOf(judge(path, entryOf(json ?? undefined, sha256), rules)),
  };
}

// The Sets tab's "In the dataset" view: a page of the sets the engine holds for a dataset folder
// (src-main/sync/state/dataset-sets-query.ts), each with its verified files, its participants'
// quota group and consent state (pseudonymous: no consent id, no name) and the media check of
// each file. Types and schemas only.
import { z } from 'zod';
import { args, integer, matching, oneOf } from './schema-kit';

/** A file's media check: `problems` names the broken rules (docs/contracts.md §1 media.csv words; listing fields as "listing:<field>"). */
export interface FileMediaCheck {
  ok: boolean;
  problems: string[];
}

/** A verified file of the set, as the engine recorded it. */
export interface DatasetSetFile {
  filename: string;
  slotIndex: number;
  slotKey: string;
  sizeBytes: number;
  sha256: string;
  /** Absent when no media check has run on this dataset. */
  media?: FileMediaCheck;
}

export interface DatasetSetParticipant {
  role: string;
  quotaGroup: { value: string; label: string };
  /** False when no consent is on record. */
  signed: boolean;
}

export interface DatasetSetRow {
  id: number;
  isGold: boolean;
  /** False when some of the set's files are not verified yet (a later sync or repair fetches them). */
  complete: boolean;
  participants: DatasetSetParticipant[];
  /** Verified files in slot order. */
  files: DatasetSetFile[];
}

export interface DatasetSetsPage {
  rows: DatasetSetRow[];
  page: number;
  perPage: number;
  /** Sets matching the filters. */
  total: number;
  /** Sets in the dataset (with a verified file), whatever the filters. */
  setsInDataset: number;
  /** The quota groups of the dataset's participants, for the filter. */
  quotaGroups: Array<{ value: string; label: string }>;
  /** Whether a media check has run (a file has a recorded probe): the media filter is offered only then. */
  mediaChecked: boolean;
}

const collectionId = integer(1, Number.MAX_SAFE_INTEGER);
const setId = integer(1, Number.MAX_SAFE_INTEGER);
/** One path part as the engine names files (names.ts); the lookup in the listing is what really decides. */
const fileName = matching(255, /^(?!\.\.?$)[^/\\\0]{1,255}$/, 'a file name (no slashes)');

export const datasetSetsArgSchema = args({
  collectionId,
  page: integer(1, 1_000_000),
  perPage: integer(1, 200),
  quotaGroup: matching(128, /^[^\0]{1,128}$/, 'a quota group value').optional(),
  gold: oneOf(['gold', 'not_gold']).optional(),
  consent: oneOf(['signed', 'missing']).optional(),
  media: oneOf(['ok', 'problems']).optional(),
  setId: matching(16, /^\d{1,16}$/, 'digits of a set id').optional(),
});
export type DatasetSetsQuery = Omit<z.output<typeof datasetSetsArgSchema>, 'collectionId'>;

export const revealArgSchema = args({ collectionId, setId, filename: fileName.optional() });

/** What "Show in folder" did: `shown` false where there is no file manager (the web bridge). */
export interface RevealResult {
  path: string;
  shown: boolean;
}

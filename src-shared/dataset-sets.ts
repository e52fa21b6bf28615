// The Sets tab's "In the dataset" view: a set as its set.json in the dataset folder holds it
// (pseudonymous: a consent is id, version and date; no file URL), which of its files are
// verified on disk, and the media check of each when one has run. Types and schemas only.
import { z } from 'zod';
import { ConsentRefSchema, FileRecordSchema, ParticipantSchema, SetRecordSchema } from './delivery-api';
import { args, integer, matching, oneOf } from './schema-kit';

export const DatasetSetSchema = SetRecordSchema.extend({
  participants: z.array(ParticipantSchema.extend({ consent: ConsentRefSchema.pick({ id: true, version: true, signed_at: true }).nullable() })),
  files: z.array(FileRecordSchema.omit({ url: true })),
});
export type DatasetSet = z.infer<typeof DatasetSetSchema>;

/** A file's media check: `problems` names the broken rules (docs/contracts.md §1 media.csv words; listing fields as "listing:<field>"). */
export interface FileMediaCheck {
  ok: boolean;
  problems: string[];
}

export interface DatasetSetRow {
  set: DatasetSet;
  /** File names of the set that are verified on disk (listed in manifest.csv). */
  verifiedFiles: string[];
  /** By file name; absent when no media check has run on this dataset. */
  media?: Record<string, FileMediaCheck>;
}

export interface DatasetSetsPage {
  rows: DatasetSetRow[];
  page: number;
  perPage: number;
  /** Sets matching the filters. */
  total: number;
  /** Sets in the dataset, whatever the filters. */
  setsInDataset: number;
  /** The quota groups of the dataset's participants, for the filter. */
  quotaGroups: Array<{ value: string; label: string }>;
  /** Whether a media check has run (media.csv exists): the media filter is offered only then. */
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

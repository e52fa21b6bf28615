// The delivery API's resources (as docs/contracts.md §6 records it) as zod schemas; the types are
// inferred from them, so a shape is declared once. Types and schemas only: no Node, no Electron
// (the renderer imports the types).
//
// Objects strip unknown fields (zod's default): what the client returns holds the documented
// fields only, and the dataset files under DEST are built from those (the allow-list). The one
// exception is the full consent record, which the spec leaves open and which is kept whole
// outside DEST (see ConsentRecordSchema).
import { z } from 'zod';

/** A count, a size or an id: a safe integer, not negative. */
const count = z.int().nonnegative();

/** The spec says ISO 8601; we accept what Date.parse reads and keep the server's text. */
const timestamp = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 timestamp');

export const MeSchema = z.object({
  client: z.object({ id: z.int(), name: z.string(), email: z.string() }),
  api_key: z.object({ name: z.string(), prefix: z.string(), scopes: z.array(z.string()) }),
});
export type Me = z.infer<typeof MeSchema>;

export const CollectionSummarySchema = z.object({
  id: z.int(),
  title: z.string(),
  status: z.string(),
  price_per_set: z.string(),
  currency: z.string(),
  // "type when set: not shown": null (or absent), an ISO string, or epoch seconds normalised to ISO.
  deadline: z
    .union([z.null(), z.number().transform((s) => new Date(s * 1000).toISOString()), timestamp])
    .optional()
    .transform((d) => d ?? null),
  created_at: timestamp,
});
export type CollectionSummary = z.infer<typeof CollectionSummarySchema>;

export const CollectionsSchema = z.object({ collections: z.array(CollectionSummarySchema) });

export const SlotSchema = z.object({ index: z.int(), key: z.string(), title: z.string(), description: z.string() });
export type Slot = z.infer<typeof SlotSchema>;

export const MediaRulesSchema = z.object({
  min_width: z.int(),
  min_height: z.int(),
  min_fps: z.number(),
  min_duration: z.number(),
  max_duration: z.number(),
  formats: z.array(z.string()),
});
export type MediaRules = z.infer<typeof MediaRulesSchema>;

export const CollectionSpecSchema = z.object({
  modality: z.string(),
  participants_per_set: z.int(),
  slots: z.array(SlotSchema),
  media_rules: MediaRulesSchema,
  participant_fields: z.array(z.string()),
  quota_field: z.string(),
  consent_version: z.string(),
  recruitment_status: z.string(),
});
export type CollectionSpec = z.infer<typeof CollectionSpecSchema>;

export const QuotaSchema = z.object({
  group: z.string(),
  value: z.string(),
  label: z.string(),
  target: count,
  accepted: count,
  reserved: count,
  // Negative when a group is over-filled.
  available: z.int(),
  status: z.string(),
});
export type Quota = z.infer<typeof QuotaSchema>;

export const CollectionDetailSchema = CollectionSummarySchema.extend({
  spec: CollectionSpecSchema,
  quotas: z.array(QuotaSchema),
  // The spec names accepted, in_review and in_progress; rework and rejected are the other set
  // states it documents. Any other key is dropped.
  sets: z.object({ accepted: count, in_review: count, in_progress: count, rework: count.optional(), rejected: count.optional() }),
});
export type CollectionDetail = z.infer<typeof CollectionDetailSchema>;

export const CollectionDetailAnswerSchema = z.object({ collection: CollectionDetailSchema });

export const ConsentRefSchema = z.object({
  id: z.int(),
  version: z.string(),
  signed_at: timestamp,
  signer_name: z.string(),
  url: z.string(),
});
export type ConsentRef = z.infer<typeof ConsentRefSchema>;

export const ParticipantSchema = z.object({
  id: z.int(),
  role: z.string(),
  participant_ref: z.string(),
  age: count.optional(),
  gender: z.string().optional(),
  ethnicity: z.string().optional(),
  skin_tone: z.string().nullable().optional(),
  quota_group: z.object({ group: z.string(), value: z.string(), label: z.string() }),
  // Required key: null is how the service says "no consent" (clients must test for it).
  consent: ConsentRefSchema.nullable(),
});
export type Participant = z.infer<typeof ParticipantSchema>;

export const MediaProbeSchema = z.object({ width: z.int(), height: z.int(), fps: z.number(), duration: z.number(), codec: z.string() });
export type MediaProbe = z.infer<typeof MediaProbeSchema>;

export const FileRecordSchema = z.object({
  id: z.int(),
  slot_index: z.int(),
  slot_key: z.string(),
  filename: z.string(),
  content_type: z.string(),
  size_bytes: count,
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters'),
  media: MediaProbeSchema,
  check_status: z.string(),
  url: z.string(),
});
export type FileRecord = z.infer<typeof FileRecordSchema>;

export const SetRecordSchema = z.object({
  id: z.int(),
  status: z.string(),
  submitted_at: timestamp,
  // Documented as a timestamp; sets that are not accepted may reasonably carry null.
  accepted_at: timestamp.nullable().optional().transform((t) => t ?? null),
  updated_at: timestamp,
  is_gold: z.boolean(),
  participants: z.array(ParticipantSchema),
  files: z.array(FileRecordSchema),
});
export type SetRecord = z.infer<typeof SetRecordSchema>;

export const SetAnswerSchema = z.object({ set: SetRecordSchema });

/**
 * The envelope of a sets page, checked strictly (a bad envelope fails the whole page); each
 * element of `sets` is checked on its own against SetRecordSchema.
 */
export const SetsPageEnvelopeSchema = z.object({
  sets: z.array(z.unknown()),
  page: z.int(),
  per_page: z.int(),
  total: count,
  has_more: z.boolean(),
});

/** A set record of a page that did not pass SetRecordSchema: its id when it had a usable one. */
export const RejectedSetSchema = z.object({ id: z.int().positive().nullable(), reason: z.string() });
export type RejectedSet = z.infer<typeof RejectedSetSchema>;

export const SetsPageSchema = SetsPageEnvelopeSchema.extend({ sets: z.array(SetRecordSchema), rejected: z.array(RejectedSetSchema) });
/** A page as the client returns it: the valid sets, and the records that were not. */
export type SetsPage = z.infer<typeof SetsPageSchema>;

/**
 * The full consent record. The spec shows only the reference fields and leaves the rest open;
 * the record is the proof of consent (the reference service adds the release text as signed
 * and a signature block), stored as received in the consents folder, never under DEST. So
 * unlike every other resource, unknown fields are kept.
 */
export const ConsentRecordSchema = z.looseObject({
  id: z.int(),
  version: z.string(),
  signed_at: timestamp,
  signer_name: z.string(),
});
export type ConsentRecord = z.infer<typeof ConsentRecordSchema>;

export const ConsentAnswerSchema = z.object({ consent: ConsentRecordSchema });

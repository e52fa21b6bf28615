// Turns records into the JSON of the delivery API (field names and shapes of the spec).
// URLs are absolute, built from the address the service listens on.

import { iso } from './clock';
import type { ApiKeyRecord, ClientAccount, CollectionRecord, ConsentRecord, FileRecord, ParticipantRecord, SetRecord } from './model';
import type { Store } from './store';
import { createHash } from 'node:crypto';

export function meJson(client: ClientAccount, key: ApiKeyRecord): unknown {
  return {
    client: { id: client.id, name: client.name, email: client.email },
    // Only a prefix of the secret ever leaves the service, as the spec's key page does.
    api_key: { name: key.name, prefix: key.secret.slice(0, 12), scopes: [...key.scopes] },
  };
}

export function collectionSummaryJson(c: CollectionRecord): Record<string, unknown> {
  return {
    id: c.id,
    title: c.title,
    status: c.status,
    price_per_set: c.pricePerSet,
    currency: c.currency,
    // "type when set: not shown" in the spec: we send an ISO 8601 UTC timestamp like every other time.
    deadline: c.deadline === null ? null : iso(c.deadline),
    created_at: iso(c.createdAt),
  };
}

export function collectionDetailJson(c: CollectionRecord, store: Store): unknown {
  const counts = store.countsByStatus(c.id);
  return {
    collection: {
      ...collectionSummaryJson(c),
      spec: {
        modality: c.modality,
        participants_per_set: c.participantsPerSet,
        slots: c.slots.map((s) => ({ ...s })),
        media_rules: { ...c.mediaRules, formats: [...c.mediaRules.formats] },
        participant_fields: [...c.participantFields],
        quota_field: c.quotaField,
        consent_version: c.consentVersion,
        recruitment_status: c.recruitmentStatus,
      },
      quotas: store.quotasOf(c).map((q) => {
        const available = Math.max(0, q.target - q.accepted - q.reserved);
        return { group: c.quotaField, value: q.value, label: q.label, target: q.target, accepted: q.accepted, reserved: q.reserved, available, status: available > 0 ? 'open' : 'filled' };
      }),
      // The spec names accepted, in_review and in_progress; rework and rejected are added so the counts add up.
      sets: { ...counts },
    },
  };
}

export function setJson(set: SetRecord, store: Store, apiBase: string): Record<string, unknown> {
  const collection = store.collections.get(set.collectionId);
  return {
    id: set.id,
    status: set.status,
    submitted_at: iso(set.submittedAt),
    // Null for a set never accepted (the spec shows only accepted sets' values).
    accepted_at: set.acceptedAt === null ? null : iso(set.acceptedAt),
    updated_at: iso(set.updatedAt),
    is_gold: set.isGold,
    participants: set.participants.map((p) => participantJson(p, collection, store, apiBase)),
    files: set.files.map((f) => fileJson(f, apiBase)),
  };
}

function participantJson(p: ParticipantRecord, collection: CollectionRecord | undefined, store: Store, apiBase: string): Record<string, unknown> {
  const out: Record<string, unknown> = { id: p.id, role: p.role, participant_ref: p.participantRef };
  const fields = collection?.participantFields ?? [];
  if (fields.includes('age')) out.age = p.age;
  if (fields.includes('gender')) out.gender = p.gender;
  if (fields.includes('ethnicity')) out.ethnicity = p.ethnicity;
  out.skin_tone = null;
  if (collection) {
    const value = collection.quotaField === 'gender' ? p.gender : p.ethnicity;
    const groups = collection.quotaDefs;
    out.quota_group = { group: collection.quotaField, value, label: groups.find((g) => g.value === value)?.label ?? value };
  }
  const consent = p.consentId === null ? undefined : store.consent(p.consentId);
  out.consent = consent
    ? { id: consent.id, version: consent.version, signed_at: iso(consent.signedAt), signer_name: consent.signerName, url: `${apiBase}/consents/${consent.id}` }
    : null;
  return out;
}

export function fileJson(f: FileRecord, apiBase: string): Record<string, unknown> {
  return {
    id: f.id,
    slot_index: f.slotIndex,
    slot_key: f.slotKey,
    filename: f.filename,
    content_type: f.contentType,
    size_bytes: f.size,
    sha256: f.sha256,
    media: { ...f.media },
    check_status: 'passed',
    url: `${apiBase}/files/${f.id}`,
  };
}

/**
 * Full consent record ("not shown beyond the reference fields" in the spec): the reference
 * fields plus the set and participant it belongs to, the release text as signed and a
 * signature block whose digest binds signer, time and text together.
 */
export function consentJson(c: ConsentRecord): unknown {
  const signedAt = iso(c.signedAt);
  const digest = createHash('sha256').update(`${c.signerName}\n${signedAt}\n${c.releaseText}`).digest('hex');
  return {
    consent: {
      id: c.id,
      version: c.version,
      signed_at: signedAt,
      signer_name: c.signerName,
      set_id: c.setId,
      participant_id: c.participantId,
      participant_ref: c.participantRef,
      release_text: c.releaseText,
      signature: { method: 'typed_name', typed_name: c.signerName, signed_at: signedAt, document_sha256: digest },
    },
  };
}

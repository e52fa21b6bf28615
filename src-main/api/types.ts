// Resource types of the delivery API, written from ../shared/spec/delivery-api.md.
// These describe what a *validated* answer looks like; the client checks every answer
// against them at runtime before anything else sees it.

export interface Me {
  client: { id: number; name: string; email: string };
  api_key: { name: string; prefix: string; scopes: string[] };
}

export interface CollectionSummary {
  id: number;
  title: string;
  status: string;
  price_per_set: string;
  currency: string;
  deadline: string | null;
  created_at: string;
}

export interface Slot {
  index: number;
  key: string;
  title: string;
  description: string;
}

export interface MediaRules {
  min_width: number;
  min_height: number;
  min_fps: number;
  min_duration: number;
  max_duration: number;
  formats: string[];
}

export interface CollectionSpec {
  modality: string;
  participants_per_set: number;
  slots: Slot[];
  media_rules: MediaRules;
  participant_fields: string[];
  quota_field: string;
  consent_version: string;
  recruitment_status: string;
}

export interface Quota {
  group: string;
  value: string;
  label: string;
  target: number;
  accepted: number;
  reserved: number;
  available: number;
  status: string;
}

export interface CollectionDetail extends CollectionSummary {
  spec: CollectionSpec;
  quotas: Quota[];
  sets: { accepted: number; in_review: number; in_progress: number; [state: string]: number };
}

export interface ConsentRef {
  id: number;
  version: string;
  signed_at: string;
  signer_name: string;
  url: string;
}

export interface Participant {
  id: number;
  role: string;
  participant_ref: string;
  age?: number;
  gender?: string;
  ethnicity?: string;
  skin_tone?: string | null;
  quota_group: { group: string; value: string; label: string };
  consent: ConsentRef | null;
}

export interface MediaProbe {
  width: number;
  height: number;
  fps: number;
  duration: number;
  codec: string;
}

export interface FileRecord {
  id: number;
  slot_index: number;
  slot_key: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  media: MediaProbe;
  check_status: string;
  url: string;
}

export type SetStatus = 'accepted' | 'in_review' | 'rework' | 'rejected' | 'in_progress' | (string & {});

export interface SetRecord {
  id: number;
  status: SetStatus;
  submitted_at: string;
  accepted_at: string | null;
  updated_at: string;
  is_gold: boolean;
  participants: Participant[];
  files: FileRecord[];
}

export interface SetsPage {
  sets: SetRecord[];
  page: number;
  per_page: number;
  total: number;
  has_more: boolean;
  /** Records of the page that broke the contract (their set fails, the others sync): filled by the client's per-record validation. */
  rejected?: Array<{ id: number | null; reason: string }>;
}

/** The spec shows only the consent reference fields; anything else the service adds is kept as is. */
export interface ConsentRecord {
  id: number;
  version: string;
  signed_at: string;
  signer_name: string;
  [field: string]: unknown;
}

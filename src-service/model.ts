// In-memory records of the reference service. These are the service's own shapes (times as
// epoch ms, disk paths, key secrets); serialize.ts turns them into the API's JSON.

import type { Clip, MediaProbe } from './clips';

export type SetStatus = 'accepted' | 'in_review' | 'rework' | 'rejected' | 'in_progress';
export const SET_STATUSES: readonly SetStatus[] = ['accepted', 'in_review', 'rework', 'rejected', 'in_progress'];

export interface ClientAccount {
  id: number;
  name: string;
  email: string;
}

export interface ApiKeyRecord {
  secret: string;
  name: string;
  clientId: number;
  scopes: string[];
  /** Epoch ms after which the key is refused; null = no expiry. */
  expiresAt: number | null;
  revoked: boolean;
}

export interface SlotDef {
  index: number;
  key: string;
  title: string;
  description: string;
}

// What a prober says of a media file: declared with the clips it describes (clips.ts).
export type { MediaProbe } from './clips';

export interface QuotaDef {
  value: string;
  label: string;
  target: number;
}

export interface CollectionRecord {
  id: number;
  clientId: number;
  title: string;
  status: string;
  pricePerSet: string;
  currency: string;
  deadline: number | null;
  createdAt: number;
  modality: string;
  participantsPerSet: number;
  slots: SlotDef[];
  mediaRules: { min_width: number; min_height: number; min_fps: number; min_duration: number; max_duration: number; formats: string[] };
  participantFields: Array<'age' | 'gender' | 'ethnicity'>;
  quotaField: 'gender' | 'ethnicity';
  consentVersion: string;
  recruitmentStatus: string;
  quotaDefs: QuotaDef[];
  /** Size of every synthetic media file of new sets in this collection; null = real clips (clips.ts). */
  fileSize: number | null;
  fileExt: string;
  contentType: string;
  releaseText: string;
}

export interface ParticipantRecord {
  id: number;
  role: string;
  participantRef: string;
  age: number;
  gender: string;
  ethnicity: string;
  consentId: number | null;
}

export interface ConsentRecord {
  id: number;
  version: string;
  signedAt: number;
  signerName: string;
  setId: number;
  participantId: number;
  participantRef: string;
  releaseText: string;
}

export interface FileRecord {
  id: number;
  setId: number;
  slotIndex: number;
  slotKey: string;
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
  /** Where a synthetic body lives; filled in once the media store has written it ('' for a clip). */
  diskPath: string;
  /** A real video: the body is this clip plus the file's stamp (clips.ts); size, sha256 and media are the clip's. */
  clip?: Clip;
  /** A body generated on request (lazy-collection.ts): the record is built per request and holds it only that long. */
  bytes?: Buffer;
  media: MediaProbe;
  /** Bumped by every admin edit, so each edit gets a different body. */
  version: number;
}

export interface SetRecord {
  id: number;
  collectionId: number;
  status: SetStatus;
  submittedAt: number;
  /** Null until the set is first accepted; kept (historical) if it later leaves `accepted`. */
  acceptedAt: number | null;
  updatedAt: number;
  isGold: boolean;
  participants: ParticipantRecord[];
  files: FileRecord[];
}

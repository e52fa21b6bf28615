// Deterministic demo data: the same seed and options always give the same accounts, keys,
// ids, timestamps and file bodies. Bodies are chosen separately (index.ts: a real clip per file,
// or synthetic bodies of a given size through media-store); here every file gets a size and
// listing that synthetic bodies keep.

import { createRandom, mixSeed, type Random } from './prng';
import type {
  ApiKeyRecord,
  ClientAccount,
  CollectionRecord,
  ConsentRecord,
  FileRecord,
  ParticipantRecord,
  QuotaDef,
  SetRecord,
  SetStatus,
  SlotDef,
} from './model';

export interface DemoOptions {
  seed: number;
  /** Accepted sets in the main collection of the first client. */
  sets: number;
  /** Bytes per media file in the main collection. */
  fileSize: number;
  /** Files per set in the main collection. */
  slots: number;
}

export interface DemoData {
  clients: ClientAccount[];
  keys: ApiKeyRecord[];
  /** Per client id, its collection ids with the main one first. */
  collectionsByClient: Map<number, number[]>;
  collections: CollectionRecord[];
  sets: SetRecord[];
  consents: ConsentRecord[];
  expiredKey: string;
  revokedKey: string;
  /** Counters the store continues from, so live ids never collide with seeded ones. */
  nextIds: { set: number; file: number; participant: number; consent: number };
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Seeded history starts here; 10,000 sets at ~10 minutes apart still end months before 2026-11. */
const HISTORY_START = Date.UTC(2026, 2, 2, 8, 0, 0);

const SLOT_TEMPLATES: Array<Omit<SlotDef, 'index'>> = [
  { key: 'greeting', title: 'Greeting', description: 'Both participants greet each other facing the camera.' },
  { key: 'pour_water', title: 'Pour water', description: 'Participant A pours water from a jug into a glass on the table.' },
  { key: 'handover', title: 'Hand over an object', description: 'A hands a mug to B, who places it on the shelf.' },
  { key: 'open_drawer', title: 'Open a drawer', description: 'B opens the top drawer, takes out a spoon and closes it.' },
  { key: 'fold_towel', title: 'Fold a towel', description: 'A folds a towel in half twice while B watches.' },
  { key: 'wipe_table', title: 'Wipe the table', description: 'B wipes the table from left to right with a cloth.' },
  { key: 'point_and_name', title: 'Point and name', description: 'A points at three objects in turn and names them aloud.' },
  { key: 'farewell', title: 'Farewell', description: 'Both participants wave goodbye and leave the frame.' },
];

const FIRST_NAMES = ['Amara', 'Jonas', 'Mei', 'Lucas', 'Priya', 'Tomasz', 'Sofia', 'Kwame', 'Elena', 'Mateo', 'Aiko', 'Noah', 'Fatima', 'Liam', 'Ines', 'Oskar', 'Zainab', 'Henrik', 'Camila', 'Dmitri', 'Leila', 'Samuel', 'Yuki', 'Chloé'];
const LAST_NAMES = ['Okafor', 'Schneider', 'Nakamura', 'Fernández', 'Sharma', 'Kowalski', 'Rossi', 'Mensah', 'Petrova', 'García', 'Lindqvist', 'Haddad', 'Dubois', 'Nguyen', "O'Brien", 'Moreau', 'Adeyemi', 'Jensen', 'Costa', 'Van der Berg'];

const GENDERS = [
  { value: 'female', label: 'Female' },
  { value: 'male', label: 'Male' },
  { value: 'non_binary', label: 'Non-binary' },
];
const ETHNICITIES = [
  { value: 'asian', label: 'Asian' },
  { value: 'black', label: 'Black or African' },
  { value: 'hispanic_latino', label: 'Hispanic or Latino' },
  { value: 'white', label: 'White' },
  { value: 'mixed_other', label: 'Mixed or other' },
];

export function quotaGroupsFor(field: 'gender' | 'ethnicity'): Array<{ value: string; label: string }> {
  return field === 'gender' ? GENDERS : ETHNICITIES;
}

interface CollectionPlan {
  title: string;
  slots: number;
  fileSize: (rand: Random) => number;
  accepted: number;
  others: Partial<Record<SetStatus, number>>;
  ext: string;
  contentType: string;
  formats: string[];
  participantFields: Array<'age' | 'gender' | 'ethnicity'>;
  quotaField: 'gender' | 'ethnicity';
  price: string;
  currency: string;
  deadline: number | null;
  createdAt: number;
  /** First acceptance time of the collection's seeded sets. */
  historyStart: number;
}

class Builder {
  readonly rand: Random;
  private nextSetId: number;
  private nextFileId: number;
  private nextParticipantId: number;
  private nextConsentId: number;
  readonly sets: SetRecord[] = [];
  readonly consents: ConsentRecord[] = [];
  private readonly consentById = new Map<number, ConsentRecord>();

  constructor(readonly seed: number) {
    this.rand = createRandom(mixSeed(seed, 0xda7a));
    // Id ranges depend a little on the seed so clients never get away with hard-coded ids.
    this.nextSetId = 10_000 + (seed % 89) * 100;
    this.nextFileId = 500_000 + (seed % 97) * 1_000;
    this.nextParticipantId = 3_000 + (seed % 53) * 10;
    this.nextConsentId = 80_000 + (seed % 61) * 10;
  }

  nextIds(): DemoData['nextIds'] {
    return { set: this.nextSetId, file: this.nextFileId, participant: this.nextParticipantId, consent: this.nextConsentId };
  }

  addCollection(id: number, clientId: number, plan: CollectionPlan): CollectionRecord {
    const slots = makeSlots(plan.slots);
    const groups = quotaGroupsFor(plan.quotaField);
    const collection: CollectionRecord = {
      id,
      clientId,
      title: plan.title,
      status: 'active',
      pricePerSet: plan.price,
      currency: plan.currency,
      deadline: plan.deadline,
      createdAt: plan.createdAt,
      modality: 'video',
      participantsPerSet: 2,
      slots,
      // What the clean demo clips satisfy (src-service/media/clips.json); the bad clips break one rule each.
      mediaRules: { min_width: 320, min_height: 240, min_fps: 24, min_duration: 2, max_duration: 120, formats: plan.formats },
      participantFields: plan.participantFields,
      quotaField: plan.quotaField,
      consentVersion: '2026-01',
      recruitmentStatus: 'open',
      quotaDefs: [],
      fileSize: plan.fileSize(this.rand),
      fileExt: plan.ext,
      contentType: plan.contentType,
      releaseText: releaseTextFor(plan.title),
    };
    const people = this.participantPool(Math.max(6, Math.ceil(plan.accepted / 2)));
    // Seeded files always get the synthetic size; real clips replace it afterwards (index.ts).
    const fileSize = collection.fileSize ?? 0;

    let time = plan.historyStart;
    for (let i = 0; i < plan.accepted; i++) {
      // Every fifth set shares its acceptance and change time with the one before (clients must de-duplicate by id).
      const sharesTimestamp = i % 5 === 2;
      if (!sharesTimestamp) time += 9 * 60_000 + this.rand.int(0, 120_000);
      // Some sets were edited after acceptance, so updated_at order differs from accepted_at order.
      const editedLater = i % 11 === 7 && i % 5 !== 1;
      const set = this.addSet(collection, people, {
        status: 'accepted',
        submittedAt: time - this.rand.int(2, 30) * HOUR,
        acceptedAt: time,
        updatedAt: editedLater ? time + 2 * DAY + this.rand.int(0, HOUR) : time,
        isGold: i % 8 === 3,
        consentNullForB: i % 5 === 4,
        fileSize: () => fileSize,
      });
      this.sets.push(set);
    }
    // Acceptance order and id order differ for a few neighbours, so ordering by id is caught.
    const ownSets = this.sets.filter((s) => s.collectionId === id);
    for (let i = 3; i + 1 < ownSets.length; i += 7) this.swapIds(ownSets[i], ownSets[i + 1]);

    for (const [status, count] of Object.entries(plan.others) as Array<[SetStatus, number]>) {
      for (let i = 0; i < count; i++) {
        time += 17 * 60_000 + this.rand.int(0, 60_000);
        this.sets.push(
          this.addSet(collection, people, {
            status,
            submittedAt: time,
            acceptedAt: null,
            updatedAt: time + this.rand.int(1, 5) * HOUR,
            isGold: false,
            consentNullForB: status === 'in_progress',
            fileSize: () => fileSize,
          }),
        );
      }
    }
    collection.quotaDefs = this.quotaTargets(collection, groups);
    return collection;
  }

  addSet(
    collection: CollectionRecord,
    people: Array<Omit<ParticipantRecord, 'role' | 'consentId'>>,
    o: { status: SetStatus; submittedAt: number; acceptedAt: number | null; updatedAt: number; isGold: boolean; consentNullForB: boolean; fileSize: () => number },
  ): SetRecord {
    const setId = this.nextSetId++;
    const lead = this.rand.pick(people);
    let partner = this.rand.pick(people);
    if (partner.id === lead.id) partner = people[(people.indexOf(lead) + 1) % people.length] ?? partner;
    const participants: ParticipantRecord[] = [lead, partner].map((person, i) => {
      const role = i === 0 ? 'A' : 'B';
      const hasConsent = !(role === 'B' && o.consentNullForB);
      let consentId: number | null = null;
      if (hasConsent) {
        consentId = this.nextConsentId++;
        const consent: ConsentRecord = {
          id: consentId,
          version: collection.consentVersion,
          signedAt: o.submittedAt - this.rand.int(1, 48) * HOUR,
          signerName: signerNameOf(person.id, this.seed),
          setId,
          participantId: person.id,
          participantRef: person.participantRef,
          releaseText: collection.releaseText,
        };
        this.consents.push(consent);
        this.consentById.set(consentId, consent);
      }
      return { ...person, role, consentId };
    });
    const files: FileRecord[] = collection.slots.map((slot) => ({
      id: this.nextFileId++,
      setId,
      slotIndex: slot.index,
      slotKey: slot.key,
      filename: fileNameFor(setId, slot.index, collection.fileExt),
      contentType: collection.contentType,
      size: o.fileSize(),
      sha256: '',
      diskPath: '',
      media: {
        width: 1920,
        height: 1080,
        fps: this.rand.pick([25, 29.97, 30, 60]),
        duration: Math.round(this.rand.int(100, 900)) / 10,
        codec: collection.fileExt === 'webm' ? 'vp9' : 'h264',
      },
      version: 0,
    }));
    return {
      id: setId,
      collectionId: collection.id,
      status: o.status,
      submittedAt: o.submittedAt,
      acceptedAt: o.acceptedAt,
      updatedAt: o.updatedAt,
      isGold: o.isGold,
      participants,
      files,
    };
  }

  private swapIds(a: SetRecord | undefined, b: SetRecord | undefined): void {
    if (!a || !b) return;
    [a.id, b.id] = [b.id, a.id];
    for (const set of [a, b]) {
      for (const file of set.files) {
        file.setId = set.id;
        file.filename = file.filename.replace(/^set_\d+_/, `set_${set.id}_`);
      }
      for (const participant of set.participants) {
        const consent = participant.consentId === null ? undefined : this.consentById.get(participant.consentId);
        if (consent) consent.setId = set.id;
      }
    }
  }

  private participantPool(size: number): Array<Omit<ParticipantRecord, 'role' | 'consentId'>> {
    const pool: Array<Omit<ParticipantRecord, 'role' | 'consentId'>> = [];
    for (let i = 0; i < size; i++) {
      pool.push({
        id: this.nextParticipantId++,
        participantRef: `pr_${this.rand.hex(12)}`,
        age: this.rand.int(18, 72),
        gender: this.rand.pick(GENDERS).value,
        ethnicity: this.rand.pick(ETHNICITIES).value,
      });
    }
    return pool;
  }

  /** Targets leave room above what the seeded sets already use, so every quota starts `open`. */
  private quotaTargets(collection: CollectionRecord, groups: Array<{ value: string; label: string }>): QuotaDef[] {
    const own = this.sets.filter((s) => s.collectionId === collection.id && s.status !== 'rework' && s.status !== 'rejected');
    return groups.map((group) => {
      const used = own.filter((s) => quotaValueOf(s, collection) === group.value).length;
      return { value: group.value, label: group.label, target: used + 5 + this.rand.int(0, 10) };
    });
  }
}

/** The set counts towards the quota group of its lead (role A). */
export function quotaValueOf(set: SetRecord, collection: CollectionRecord): string {
  const lead = set.participants.find((p) => p.role === 'A') ?? set.participants[0];
  if (!lead) return '';
  return collection.quotaField === 'gender' ? lead.gender : lead.ethnicity;
}

export function fileNameFor(setId: number, slotIndex: number, ext: string): string {
  return `set_${setId}_slot_${String(slotIndex).padStart(2, '0')}.${ext}`;
}

function makeSlots(count: number): SlotDef[] {
  const slots: SlotDef[] = [];
  for (let i = 0; i < count; i++) {
    const template = SLOT_TEMPLATES[i] ?? { key: `scene_${i + 1}`, title: `Scene ${i + 1}`, description: `Free scene number ${i + 1}.` };
    slots.push({ index: i + 1, ...template });
  }
  return slots;
}

function signerNameOf(personId: number, seed: number): string {
  const h = mixSeed(seed, personId, 0x6e616d65);
  return `${FIRST_NAMES[h % FIRST_NAMES.length]} ${LAST_NAMES[(h >>> 8) % LAST_NAMES.length]}`;
}

function releaseTextFor(title: string): string {
  return (
    `Data release for "${title}" (version 2026-01).\n` +
    'I agree that the video recordings made for this collection, together with the demographic fields I provided, ' +
    'may be delivered to the client named in the job and used to train and evaluate machine-learning models. ' +
    'My name is stored only with this consent record and is never part of the delivered dataset. ' +
    'I may withdraw this consent for future use at any time.'
  );
}

function makeKey(rand: Random): string {
  return `dsk_live_${rand.hex(32)}`;
}

export function buildDemoData(options: DemoOptions): DemoData {
  const b = new Builder(options.seed);
  const rand = createRandom(mixSeed(options.seed, 0x6b657973));
  const small = (r: Random): number => 16 * 1024 + r.int(0, 8 * 1024);

  const clients: ClientAccount[] = [
    { id: 1, name: 'Northwind Robotics', email: 'data-team@northwind-robotics.example' },
    { id: 2, name: 'Helios Vision Labs', email: 'ml-ops@helios-vision.example' },
  ];
  const mainKey = makeKey(rand);
  const secondKey = makeKey(rand);
  const expiredKey = makeKey(rand);
  const revokedKey = makeKey(rand);
  const keys: ApiKeyRecord[] = [
    { secret: mainKey, name: 'dataset-sync on training server', clientId: 1, scopes: ['collections:read'], expiresAt: null, revoked: false },
    { secret: secondKey, name: 'nightly export', clientId: 2, scopes: ['collections:read'], expiresAt: null, revoked: false },
    { secret: expiredKey, name: 'old laptop', clientId: 1, scopes: ['collections:read'], expiresAt: Date.UTC(2026, 0, 31), revoked: false },
    { secret: revokedKey, name: 'leaked in a notebook', clientId: 1, scopes: ['collections:read'], expiresAt: null, revoked: true },
  ];

  const base = 1_000 + (options.seed % 83) * 10;
  const ids = { main: base + 7, second: base + 4, third: base + 1, helios1: base + 5, helios2: base + 2 };
  const collections: CollectionRecord[] = [
    b.addCollection(ids.main, 1, {
      title: 'Household manipulation, two-person scenes',
      slots: options.slots,
      fileSize: () => options.fileSize,
      accepted: options.sets,
      others: { in_review: 2, rework: 1, rejected: 1, in_progress: 2 },
      ext: 'mp4',
      contentType: 'video/mp4',
      formats: ['mp4', 'mov'],
      participantFields: ['age', 'gender', 'ethnicity'],
      quotaField: 'gender',
      price: '42.50',
      currency: 'EUR',
      deadline: Date.UTC(2027, 0, 31, 23, 59, 59),
      createdAt: Date.UTC(2026, 1, 20, 10, 0, 0),
      historyStart: HISTORY_START,
    }),
    b.addCollection(ids.second, 1, {
      title: 'Outdoor gestures in daylight',
      slots: 3,
      fileSize: small,
      accepted: 3,
      others: { in_review: 1 },
      ext: 'webm',
      contentType: 'video/webm',
      formats: ['webm', 'matroska'],
      participantFields: ['age', 'ethnicity'],
      quotaField: 'ethnicity',
      price: '18.00',
      currency: 'EUR',
      deadline: null,
      createdAt: Date.UTC(2026, 0, 12, 9, 30, 0),
      historyStart: Date.UTC(2026, 0, 20, 8, 0, 0),
    }),
    b.addCollection(ids.third, 1, {
      title: 'Sign language alphabet (pilot)',
      slots: 5,
      fileSize: small,
      accepted: 2,
      others: { rejected: 1 },
      ext: 'mov',
      contentType: 'video/quicktime',
      formats: ['mov', 'mp4'],
      participantFields: ['gender'],
      quotaField: 'gender',
      price: '65.00',
      currency: 'USD',
      deadline: Date.UTC(2026, 5, 30, 0, 0, 0),
      createdAt: Date.UTC(2025, 10, 3, 14, 0, 0),
      historyStart: Date.UTC(2025, 10, 10, 8, 0, 0),
    }),
    b.addCollection(ids.helios1, 2, {
      title: 'Driver attention in parked cars',
      slots: 4,
      fileSize: small,
      accepted: 3,
      others: { in_progress: 1 },
      ext: 'mp4',
      contentType: 'video/mp4',
      formats: ['mp4'],
      participantFields: ['age', 'gender'],
      quotaField: 'gender',
      price: '30.00',
      currency: 'USD',
      deadline: null,
      createdAt: Date.UTC(2026, 1, 1, 12, 0, 0),
      historyStart: Date.UTC(2026, 1, 5, 8, 0, 0),
    }),
    b.addCollection(ids.helios2, 2, {
      title: 'Facial expressions under mixed light',
      slots: 3,
      fileSize: small,
      accepted: 2,
      others: { rework: 1 },
      ext: 'mkv',
      contentType: 'video/x-matroska',
      formats: ['matroska', 'webm'],
      participantFields: ['age', 'gender', 'ethnicity'],
      quotaField: 'ethnicity',
      price: '24.75',
      currency: 'GBP',
      deadline: Date.UTC(2026, 11, 15, 17, 0, 0),
      createdAt: Date.UTC(2025, 11, 1, 8, 0, 0),
      historyStart: Date.UTC(2025, 11, 8, 8, 0, 0),
    }),
  ];

  return {
    clients,
    keys,
    collectionsByClient: new Map([
      [1, [ids.main, ids.second, ids.third]],
      [2, [ids.helios1, ids.helios2]],
    ]),
    collections,
    sets: b.sets,
    consents: b.consents,
    expiredKey,
    revokedKey,
    nextIds: b.nextIds(),
  };
}

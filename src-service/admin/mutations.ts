// Live changes to the data (admin interface): new accepted sets, edits after acceptance,
// status moves. New bodies go to the media store's per-instance folder.

import { iso } from '../clock';
import { fileNameFor, quotaGroupsFor } from '../demo-data';
import type { ClipLibrary } from '../clips';
import type { MediaStore } from '../media-store';
import type { CollectionRecord, ConsentRecord, FileRecord, ParticipantRecord, SetRecord, SetStatus } from '../model';
import { createRandom, mixSeed } from '../prng';
import { cleanClipFor, putClip } from '../real-media';
import type { Store } from '../store';

/** Synthetic body size of new files in a collection of real videos when the clips are missing. */
const FALLBACK_SIZE = 1024 * 1024;

const SIGNERS = ['Hana Novak', 'Ravi Menon', 'Greta Olsen', 'Tunde Bakare', 'Lucía Romero', 'Wen Li', 'Marek Zielinski', 'Aisha Rahman'];

export interface MutationContext {
  store: Store;
  media: MediaStore;
  /** The demo videos; null when the folder is missing. */
  clips: ClipLibrary | null;
  seed: number;
  now: () => number;
}

export async function addAcceptedSets(ctx: MutationContext, collection: CollectionRecord, o: { count: number; isGold: boolean; consentNull: boolean }): Promise<SetRecord[]> {
  const created: SetRecord[] = [];
  for (let n = 0; n < o.count; n++) {
    const ids = ctx.store.allocateIds();
    const setId = ids.set();
    const rand = createRandom(mixSeed(ctx.seed, setId, 0xadd));
    const now = ctx.now();
    const participants: ParticipantRecord[] = ['A', 'B'].map((role) => {
      const participantId = 900_000 + setId * 2 + (role === 'A' ? 0 : 1);
      const participant: ParticipantRecord = {
        id: participantId,
        role,
        participantRef: `pr_${rand.hex(12)}`,
        age: rand.int(18, 72),
        gender: rand.pick(quotaGroupsFor('gender')).value,
        ethnicity: rand.pick(quotaGroupsFor('ethnicity')).value,
        consentId: null,
      };
      if (!o.consentNull) {
        const consent: ConsentRecord = {
          id: ids.consent(),
          version: collection.consentVersion,
          signedAt: now - 3_600_000,
          signerName: rand.pick(SIGNERS),
          setId,
          participantId,
          participantRef: participant.participantRef,
          releaseText: collection.releaseText,
        };
        ctx.store.addConsent(consent);
        participant.consentId = consent.id;
      }
      return participant;
    });
    const files: FileRecord[] = [];
    for (const slot of collection.slots) {
      const fileId = ids.file();
      const media = { width: 1920, height: 1080, fps: 30, duration: rand.int(100, 900) / 10, codec: 'h264' };
      // A collection of real videos gets a real clip; one of synthetic bodies, a body of its size.
      if (collection.fileSize === null && ctx.clips) {
        const file: FileRecord = { id: fileId, setId, slotIndex: slot.index, slotKey: slot.key, filename: '', contentType: '', size: 0, sha256: '', diskPath: '', media, version: 0 };
        putClip(file, cleanClipFor(ctx.clips, collection, fileId, ctx.seed), ctx.seed);
        files.push(file);
        continue;
      }
      const size = collection.fileSize ?? FALLBACK_SIZE;
      const body = await ctx.media.createRuntimeBody({ name: `f${fileId}-v0.bin`, size, variant: mixSeed(ctx.seed, fileId, 0, 0x11fe) });
      files.push({
        id: fileId,
        setId,
        slotIndex: slot.index,
        slotKey: slot.key,
        filename: fileNameFor(setId, slot.index, collection.fileExt),
        contentType: collection.contentType,
        size: body.size,
        sha256: body.sha256,
        diskPath: body.path,
        media,
        version: 0,
      });
    }
    const set: SetRecord = {
      id: setId,
      collectionId: collection.id,
      status: 'accepted',
      submittedAt: now - 7_200_000,
      acceptedAt: now,
      updatedAt: now,
      isGold: o.isGold,
      participants,
      files,
    };
    ctx.store.addSet(set);
    created.push(set);
  }
  return created;
}

/**
 * A new body for one slot (new sha256): a real video gets a new stamp on the same clip, a
 * synthetic body keeps its size; `size` asks for a synthetic body of that size. Optionally a
 * verbatim filename.
 */
export async function editSetFile(ctx: MutationContext, set: SetRecord, file: FileRecord, o: { filename?: string; size?: number }): Promise<void> {
  const version = file.version + 1;
  if (o.size === undefined && file.clip) {
    file.version = version;
    putClip(file, file.clip, ctx.seed);
    if (o.filename !== undefined) file.filename = o.filename;
    ctx.store.fileChanged(set, ctx.now());
    return;
  }
  const body = await ctx.media.createRuntimeBody({ name: `f${file.id}-v${version}.bin`, size: o.size ?? file.size, variant: mixSeed(ctx.seed, file.id, version, 0xed17) });
  file.version = version;
  ctx.store.replaceFileBody(set, file, body, ctx.now(), o.filename);
}

export function moveSet(ctx: MutationContext, set: SetRecord, status: SetStatus): void {
  ctx.store.changeStatus(set, status, ctx.now());
}

/** What tests need to compute the expected dataset of every collection. */
export function stateJson(store: Store): unknown {
  return {
    collections: [...store.collections.values()].map((c) => {
      const accepted = store.setsInOrder(c.id, 'accepted');
      return {
        id: c.id,
        client: store.clients.get(c.clientId)?.name ?? '',
        client_id: c.clientId,
        file_size: c.fileSize,
        slots: c.slots.length,
        accepted_set_ids: accepted.map((s) => s.id),
        accepted_sets: accepted.map((s) => ({
          id: s.id,
          accepted_at: s.acceptedAt === null ? null : iso(s.acceptedAt),
          updated_at: iso(s.updatedAt),
          is_gold: s.isGold,
          consent_ids: s.participants.flatMap((p) => (p.consentId === null ? [] : [p.consentId])),
          files: s.files.map((f) => ({ id: f.id, slot_index: f.slotIndex, filename: f.filename, size_bytes: f.size, sha256: f.sha256 })),
        })),
        counts: store.countsByStatus(c.id),
      };
    }),
  };
}

// What the engine's face (engine.ts) does with a dataset named by its text (`s3://B/P`, a folder
// path), its spec, or an open Destination: open it, verify it, read whom it belongs to. The
// CLI and the app used to assemble these from verify.ts, state.ts and destination/ themselves;
// here they are done once, so callers import only the face.
import type { SyncSummary, VerifyReport } from '../../src-shared/sync-events';
import type { Destination, DestinationSpec } from './destination/destination';
import { openDestination as openSpec, stateHome as stateHomeOf } from './destination/open';
import { parseDestination as parseText } from './destination/parse-destination';
import type { OpenOptions as BackendOpenOptions, ParseOptions } from './destination/registry';
import type { FolderOwner } from './folder-binding';
import { peekHead, readPublishedHead } from './state/published-head';
import { readHistoryIn } from './state/history';
import { verifyDataset, type VerifyStep } from './verify';

/** A dataset as callers name it: the text of `--dest` or of the settings, or its parsed spec. */
export type DestinationTarget = string | DestinationSpec;

/** How a text is read and a destination opened: the store's endpoint and region (else the environment's), and credentials held in memory (else the store's default chain). */
export interface OpenOptions extends Omit<ParseOptions, 'near'>, Pick<BackendOpenOptions, 'credentials'> {}

/** The spec a text names (DestinationError 'config' when it names nothing usable); a spec is returned as it is. */
export function parseDestination(target: DestinationTarget, options: OpenOptions = {}): DestinationSpec {
  return typeof target === 'string' ? parseText(target, options) : target;
}

/** The destination a text or spec names; opening touches nothing (prepare() does). The caller closes it. */
export function openDestination(target: DestinationTarget, options: OpenOptions = {}): Destination {
  return openSpec(parseDestination(target, options), options.credentials);
}

/** Where the engine keeps its state for the dataset on this machine (Destination.stateDir): DEST/.dataset-sync for a folder. Touches nothing. */
export function stateHome(target: DestinationTarget, options: OpenOptions = {}): string {
  return stateHomeOf(parseDestination(target, options), options.env);
}

/** Past syncs of the dataset, newest first (empty when there are none), from its state on this machine. */
export async function readHistory(target: DestinationTarget, options: OpenOptions = {}): Promise<SyncSummary[]> {
  return readHistoryIn(stateHome(target, options));
}

function isDestination(target: Destination | DestinationTarget): target is Destination {
  return typeof target === 'object' && typeof (target as Destination).readText === 'function';
}

export interface VerifyOptions extends OpenOptions {
  /** After each file: files checked of the manifest's, and the bytes (VerifyStep). */
  onProgress?: (checked: number, total: number, step: VerifyStep) => void;
  /** Stops before the next file; the promise rejects (verify only reads: nothing to undo). */
  signal?: AbortSignal;
}

/**
 * `verify`: re-hashes every file the manifest lists and reports missing, changed and extra ones
 * (verify.ts). A destination given open stays open; one named by text or spec is opened for
 * this verify and closed. No manifest.csv: DestinationError with code ENOENT.
 */
export async function verify(target: Destination | DestinationTarget, options: VerifyOptions = {}): Promise<VerifyReport> {
  if (isDestination(target)) return verifyDataset(target, options.onProgress, options.signal);
  const destination = openDestination(target, options);
  try {
    return await verifyDataset(destination, options.onProgress, options.signal);
  } finally {
    await destination.close();
  }
}

/** The service and collection a destination's head records; nulls when none is recorded (never synced, or a head that cannot be read). */
export type RecordedOwner = { [K in keyof FolderOwner]: FolderOwner[K] | null };

/** Whom the dataset belongs to (a repair syncs from there): the head in its state, or the copy the destination carries. */
export async function readOwner(destination: Destination): Promise<RecordedOwner> {
  const state = destination.sharedAcrossMachines ? null : peekHeadOf(destination);
  const head = state ?? (await readPublishedHead(destination).catch(() => null))?.state ?? null;
  return { baseUrl: head?.baseUrl ?? null, collectionId: head?.collectionId ?? null };
}

function peekHeadOf(destination: Destination) {
  const peeked = peekHead(destination);
  return peeked instanceof Promise ? null : peeked;
}

/**
 * The same, read without the lock and, where the destination can (a folder's peekText),
 * synchronously; null when no head is there. A guess: another sync may be writing it.
 */
export function peekOwner(destination: Destination): RecordedOwner | null | Promise<RecordedOwner | null> {
  const owner = (state: Awaited<ReturnType<typeof peekHead>>) => state && { baseUrl: state.baseUrl, collectionId: state.collectionId };
  const peeked = peekHead(destination);
  return peeked instanceof Promise ? peeked.then(owner) : owner(peeked);
}

// A dataset folder belongs to one service and one collection (docs/contracts.md §4): its watermark,
// pending sets and records mean nothing for another, and reusing them would skip the other
// service's sets for good. The state records both; a sync for another stops before it writes
// or asks anything. A folder synced before the service was recorded takes the service of its
// next sync.
import type { EngineState } from './state/head';

export interface FolderOwner {
  baseUrl: string;
  collectionId: number;
}

/** Why `state` may not be synced as `wanted`, or null when it may. */
export function bindingConflict(dest: string, state: Pick<EngineState, 'baseUrl' | 'collectionId'>, wanted: FolderOwner): string | null {
  const sameCollection = state.collectionId === null || state.collectionId === wanted.collectionId;
  const sameService = state.baseUrl === null || state.baseUrl === wanted.baseUrl;
  if (sameCollection && sameService) return null;
  const holds = `collection ${state.collectionId ?? '?'}${state.baseUrl === null ? '' : ` of ${state.baseUrl}`}`;
  return (
    `${dest} holds ${holds}; this sync is for collection ${wanted.collectionId} of ${wanted.baseUrl}. ` +
    'A dataset folder belongs to one service and one collection: choose another folder.'
  );
}

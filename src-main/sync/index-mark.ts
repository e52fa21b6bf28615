// Whether manifest.csv and SHA256SUMS were written from the records as they are now: the index
// fingerprint in state.json carries the store's change counter of that moment.
import type { IndexFingerprint } from './state/head';


/** The store's mark for "no record changed since": its change counter (one step per flush that wrote records). */
export function storeMark(store: { readonly changeCount: number }): number {
  return store.changeCount;
}

/** The index was written from the records as they are now (recorded with storeMark). */
export function indexListsStore(index: IndexFingerprint & { changes?: number }, store: { readonly changeCount: number }): boolean {
  return index.changes === storeMark(store);
}

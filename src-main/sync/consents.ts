// Consent records hold real names: they live apart from the dataset, one object `<id>.json` in
// the consents destination (docs/contracts.md §1; a folder in its consents role: folder 0700 when the sync
// creates it, records 0600, links resolved once at the start, see destination/local-folder.ts).
import type { ConsentRecord } from '../../src-shared/delivery-api';
import type { Destination } from './destination/destination';

/**
 * Written whole (a folder: temp file beside the records, 0600 from the first byte, then rename;
 * synchronous calls, a record is a few hundred bytes and there are thousands per sync in bench
 * scenario 2), so a record under its final name is complete.
 */
export async function writeConsent(consents: Destination, consentId: number, record: ConsentRecord): Promise<void> {
  await consents.writeAtomic(`${consentId}.json`, JSON.stringify(record, null, 2) + '\n', { private: true });
}

/**
 * A record under its final name was written whole: nothing to fetch. A consents destination
 * found empty when prepared holds only what was written since: taken as not stored without
 * asking (at worst a record is fetched and written again, the same bytes).
 */
export async function consentStored(consents: Destination, consentId: number): Promise<boolean> {
  if (consents.foundEmpty === true) return false;
  return (await consents.stat(`${consentId}.json`)) !== null;
}

// How an in-memory destination is named: `memory://NAME` (tests only, backend.ts). Destinations
// opened with the same name in one process share their objects, as two opens of one bucket do.

export interface MemorySpec {
  kind: 'memory';
  /** Letters, digits and `._-` in parts separated by '/'; the siblings add `.consents` and `.withdrawn`. */
  name: string;
}

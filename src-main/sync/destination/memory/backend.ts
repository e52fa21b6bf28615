// The in-memory backend as the registry knows it (registry.ts): `memory://NAME`, for tests only
// (testOnly: never named in messages, the CLI's help or the app). Its siblings are the names
// `NAME.consents` and `NAME.withdrawn`; the engine's state for it is kept in a folder under the
// system's temp folder unless a test gives its own (createMemoryDestination).
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { DestinationError } from '../destination';
import type { DestinationBackend } from '../registry';
import { MemoryDestination } from './memory-destination';
import type { MemorySpec } from './spec';

const NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/** The engine's state folder for a memory destination of this process: <tmp>/dataset-sync-memory/<pid>/<hash of the name>. */
function defaultStateHome(spec: MemorySpec): string {
  const id = createHash('sha256').update(spec.name).digest('hex').slice(0, 16);
  return path.join(os.tmpdir(), 'dataset-sync-memory', String(process.pid), id);
}

/** An in-memory destination named `name`; `stateDir`: where the engine keeps its state for it (default: under the temp folder). */
export function createMemoryDestination(name: string, options: { stateDir?: string } = {}): MemoryDestination {
  return new MemoryDestination(name, options.stateDir ?? defaultStateHome({ kind: 'memory', name }));
}

/** A name the same or under `dataset`'s: never a place for its consents. */
function insideDataset(spec: MemorySpec, dataset: MemorySpec): boolean {
  return spec.name === dataset.name || spec.name.startsWith(`${dataset.name}/`);
}

export const memoryBackend: DestinationBackend<MemorySpec> = {
  kind: 'memory',
  scheme: 'memory',
  example: 'memory://NAME',
  testOnly: true,
  capabilities: ['peekText', 'extendAtomic', 'openUploadNow', 'foundEmpty'],
  parse(text) {
    const name = text.slice('memory://'.length);
    if (!NAME.test(name)) throw new DestinationError('config', `${text} is not memory://NAME (letters, digits, '.', '_' and '-' in parts separated by '/').`);
    return { kind: 'memory', name };
  },
  label: (spec) => `memory://${spec.name}`,
  stateHome: defaultStateHome,
  sibling: (spec, suffix) => ({ kind: 'memory', name: spec.name + suffix }),
  open(spec, { consentsOf }) {
    const dataset = consentsOf?.dataset;
    if (dataset?.kind === 'memory' && insideDataset(spec, dataset)) {
      throw new DestinationError('config', `The consents ${consentsOf?.text ?? `memory://${spec.name}`} must not be inside the dataset memory://${dataset.name}: consents hold real names.`);
    }
    return createMemoryDestination(spec.name);
  },
};

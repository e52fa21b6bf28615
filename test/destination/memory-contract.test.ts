// The Destination contract (contract.ts) run against the in-memory destination
// (src-main/sync/destination/memory/), with the capabilities its backend declares, and what only it
// has: it is named `memory://NAME` through the registry, and two opens of one name in a process
// share their objects and their lock, as two opens of one folder or bucket do.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { destinations } from '../../src-main/sync/destination/all';
import { DestinationError } from '../../src-main/sync/destination/destination';
import { createMemoryDestination, memoryBackend } from '../../src-main/sync/destination/memory/backend';
import { forgetMemoryStore } from '../../src-main/sync/destination/memory/memory-store';
import { destinationContract } from './contract';

let n = 0;

destinationContract(
  'in memory',
  async () => {
    const work = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-memory-contract-'));
    const name = `contract-${process.pid}-${++n}`;
    const dest = createMemoryDestination(name, { stateDir: path.join(work, 'state') });
    return {
      dest,
      sibling: createMemoryDestination(`${name}.withdrawn`, { stateDir: path.join(work, 'withdrawn-state') }),
      cleanup: async () => {
        forgetMemoryStore(name);
        forgetMemoryStore(`${name}.withdrawn`);
        await fs.rm(work, { recursive: true, force: true });
      },
    };
  },
  { capabilities: memoryBackend.capabilities },
);

describe('the in-memory destination by name', () => {
  it('memory://NAME is parsed, labelled and opened through the registry; one name is one store', async () => {
    const spec = destinations.parse('memory://registry-test/ds');
    expect(spec).toEqual({ kind: 'memory', name: 'registry-test/ds' });
    expect(destinations.label(spec)).toBe('memory://registry-test/ds');
    expect(destinations.sibling(spec, '.withdrawn')).toEqual({ kind: 'memory', name: 'registry-test/ds.withdrawn' });
    const a = destinations.open(spec);
    const b = destinations.open(spec);
    expect(a.stateDir).toBe(destinations.stateHome(spec));
    await a.writeAtomic('collection.json', '{"id":1}');
    expect(await b.readText('collection.json')).toBe('{"id":1}');
    const lock = await a.lock();
    await expect(b.lock()).rejects.toMatchObject({ kind: 'locked' });
    await lock.release();
    await (await b.lock()).release();
    forgetMemoryStore('registry-test/ds');
    expect(await destinations.open(spec).readText('collection.json')).toBeNull();
  });

  it('refuses names that are not memory://NAME, and consents inside the dataset', () => {
    for (const bad of ['memory://', 'memory://a//b', 'memory://../x', 'memory://a b']) expect(() => destinations.parse(bad)).toThrow(DestinationError);
    const dataset = destinations.parse('memory://ds');
    expect(() => destinations.openConsents(dataset, 'memory://ds/consents')).toThrow(/must not be inside the dataset memory:\/\/ds/);
    expect(destinations.openConsents(dataset, undefined).label).toBe('memory://ds.consents');
  });
});

// `purge-withdrawn --dest DIR|s3://…` (docs/contracts.md §2): deletes DEST.withdrawn/ (a bucket's
// PREFIX.withdrawn/), what left the dataset, after printing what it deletes. The only command
// that deletes data the service once delivered: nothing else does (withdraw.ts only moves).
import { parseArgs } from 'node:util';
import { DestinationError, openDestination, parseDestination, purgeWithdrawn, siblingSpec, type Destination } from '../sync/engine';
import { formatBytes } from './format';
import type { Io } from './commands';
import { UsageError } from './usage';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Exit code of a destination failure: unreachable store 4, everything else (config, locked, io) 2. */
function exitFor(e: DestinationError): number {
  return e.kind === 'unreachable' ? 4 : 2;
}

export async function purgeWithdrawnCommand(argv: string[], io: Io): Promise<number> {
  let values;
  try {
    values = parseArgs({ args: argv, options: { dest: { type: 'string' }, 's3-endpoint': { type: 'string' } }, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const destArg = values.dest;
  if (typeof destArg !== 'string' || destArg.trim() === '') throw new UsageError('--dest is required');
  const endpoint = values['s3-endpoint'];
  let dataset: Destination;
  let withdrawn: Destination;
  try {
    const spec = parseDestination(destArg, typeof endpoint === 'string' ? { endpoint } : {});
    dataset = openDestination(spec);
    withdrawn = openDestination(siblingSpec(spec, '.withdrawn'));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  try {
    const found = await purgeWithdrawn(dataset, withdrawn, (listed) => {
      if (listed.objects === 0) io.stdout.write(`Nothing to delete: ${withdrawn.label} holds no withdrawn data.\n`);
      for (const s of listed.sets) io.stdout.write(`delete  ${s.name}/  (${plural(s.objects, 'file')}, ${formatBytes(s.bytes)})\n`);
    });
    if (found.objects > 0) io.stdout.write(`Deleted ${plural(found.objects, 'file')} (${formatBytes(found.bytes)}) of ${plural(found.sets.length, 'set')} from ${withdrawn.label}.\n`);
    return 0;
  } catch (e) {
    if (!(e instanceof DestinationError)) throw e;
    io.stderr.write(`dataset-sync: purge-withdrawn: ${e.message}\n`);
    return exitFor(e);
  } finally {
    await dataset.close().catch(() => undefined);
    await withdrawn.close().catch(() => undefined);
  }
}

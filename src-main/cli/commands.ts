// The CLI commands (docs/contracts.md §2). Each returns its exit code; printing goes to the given streams.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { BaseUrlError, validateBaseUrl } from '../api/base-url';
import { createDeliveryClient, type DeliveryClient } from '../api/delivery-client';
import { isApiError, type ApiError } from '../api/errors';
import { createKeychainStore } from '../secrets/keychain';
import { SecretStoreUnavailableError } from '../secrets/secret-store';
import { exitCodeFor, MAX_HASH_WORKERS, openDestination, parseBwlimit, readOwner, repair, sync, verify, type Destination } from '../sync/engine';
import type { SyncTuning } from '../../src-shared/sync-events';
import type { CollectionDetail, CollectionSummary } from '../../src-shared/delivery-api';
import { API_KEY_ENV, MissingKeyError, resolveApiKey } from './api-key';
import { keyPrefix } from './format';
import { createJsonLineWriter } from './json-lines';
import { readSecretFromStdin } from './stdin-secret';
import { SyncDisplay } from './sync-display';
import { UsageError } from './usage';
import { CONCURRENCY, DEFAULT_CONCURRENCY } from '../../src-shared/settings';

type Options = ParseArgsConfig['options'];

function parse(argv: string[], options: NonNullable<Options>) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as Record<string, string | boolean | undefined>;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v;
}

function baseUrlOf(values: Record<string, string | boolean | undefined>): string {
  try {
    return validateBaseUrl(required(values, 'base-url'));
  } catch (e) {
    if (e instanceof BaseUrlError) throw new UsageError(e.message);
    throw e;
  }
}

function positiveInt(text: string, name: string, min: number, max: number): number {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${text}"`);
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${text}`);
  return n;
}

/** --bwlimit in rclone's syntax (rate-limit.ts parseBwlimit); undefined when absent, off or 0. */
function bwlimitOf(text: string | boolean | undefined): number | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    return parseBwlimit(text);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Exit code for an API failure outside a sync (collections, login): the engine's table. */
function apiExitCode(e: ApiError): number {
  return exitCodeFor(e.kind);
}

/** Test and tuning knobs from the environment; documented in src-main/sync/README.md. */
export function tuningFromEnv(env: NodeJS.ProcessEnv = process.env): SyncTuning {
  const num = (name: string): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${name} must be a positive number, got "${v}"`);
    return n;
  };
  const count = (name: string): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    if (!/^\d+$/.test(v)) throw new UsageError(`${name} must be a whole number (0 or more), got "${v}"`);
    return Math.min(Number(v), MAX_HASH_WORKERS);
  };
  return {
    retryBaseMs: num('DATASET_SYNC_RETRY_BASE_MS'),
    maxAttempts: num('DATASET_SYNC_MAX_ATTEMPTS'),
    stallTimeoutMs: num('DATASET_SYNC_STALL_TIMEOUT_MS'),
    hashWorkers: count('DATASET_SYNC_HASH_WORKERS'),
  };
}

/** --slots/--groups: a comma-separated list, `all` for every one (clears the remembered choice); absent: as remembered. */
function subsetOptions(v: Record<string, string | boolean | undefined>): { slots?: string[] | null; groups?: string[] | null } {
  const list = (name: 'slots' | 'groups'): string[] | null | undefined => {
    const text = v[name];
    if (typeof text !== 'string') return undefined;
    if (text.trim() === 'all') return null;
    const items = text.split(',').map((s) => s.trim());
    if (items.some((s) => s === '')) throw new UsageError(`--${name} takes a comma-separated list of ${name === 'slots' ? 'slot keys' : 'quota group values'} (or all), got "${text}"`);
    return items;
  };
  const slots = list('slots');
  const groups = list('groups');
  return { ...(slots !== undefined ? { slots } : {}), ...(groups !== undefined ? { groups } : {}) };
}

export interface Io {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

export async function syncCommand(argv: string[], io: Io): Promise<number> {
  const v = parse(argv, {
    'base-url': { type: 'string' },
    collection: { type: 'string' },
    dest: { type: 'string' },
    'consents-dir': { type: 'string' },
    's3-endpoint': { type: 'string' },
    concurrency: { type: 'string' },
    bwlimit: { type: 'string' },
    'exclude-gold': { type: 'boolean' },
    slots: { type: 'string' },
    groups: { type: 'string' },
    full: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const baseUrl = baseUrlOf(v);
  const collectionId = positiveInt(required(v, 'collection'), 'collection', 1, Number.MAX_SAFE_INTEGER);
  const dest = required(v, 'dest');
  const concurrency = v.concurrency === undefined ? DEFAULT_CONCURRENCY : positiveInt(String(v.concurrency), 'concurrency', CONCURRENCY.min, CONCURRENCY.max);
  const bwlimitBytesPerSecond = bwlimitOf(v.bwlimit);
  const tuning = tuningFromEnv();
  const apiKey = await resolveApiKey(baseUrl);
  const json = v.json === true;

  const display = new SyncDisplay(io.stderr, io.stderr.isTTY === true && !json);
  const lines = createJsonLineWriter(io.stdout);
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    io.stderr.write('\nCancelling… (partial downloads are kept; press Ctrl-C again to quit at once)\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  // A reader that stops reading (`--json | head -1`) ends the sync as Ctrl-C does (what was
  // verified is recorded, partial downloads stay) instead of a crash on EPIPE. The listener stays:
  // the stream may report more than one error.
  let stdoutGone = false;
  io.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (stdoutGone) return;
    stdoutGone = true;
    lines.stop();
    io.stderr.write(`dataset-sync: standard output was closed (${e.code ?? e.message}); cancelling the sync. Partial downloads are kept.\n`);
    controller.abort();
  });
  try {
    const summary = await sync(
      {
        baseUrl,
        apiKey,
        collectionId,
        dest,
        consentsDir: typeof v['consents-dir'] === 'string' ? v['consents-dir'] : undefined,
        ...(typeof v['s3-endpoint'] === 'string' ? { s3Endpoint: v['s3-endpoint'] } : {}),
        concurrency,
        ...(bwlimitBytesPerSecond !== undefined ? { bwlimitBytesPerSecond } : {}),
        excludeGold: v['exclude-gold'] === true,
        ...subsetOptions(v),
        full: v.full === true,
        signal: controller.signal,
        tuning,
      },
      (e) => {
        if (json) {
          lines.push(e);
          if (e.type === 'summary') lines.flush();
        } else display.handle(e);
      },
    );
    lines.flush();
    if (json && summary.fatal) io.stderr.write(`dataset-sync: ${summary.fatal.message}\n`);
    return summary.exitCode;
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
  }
}

export async function verifyCommand(argv: string[], io: Io): Promise<number> {
  const v = parse(argv, {
    dest: { type: 'string' },
    's3-endpoint': { type: 'string' },
    json: { type: 'boolean' },
    repair: { type: 'boolean' },
    'base-url': { type: 'string' },
    concurrency: { type: 'string' },
  });
  const dest = required(v, 'dest');
  const json = v.json === true;
  const s3Endpoint = typeof v['s3-endpoint'] === 'string' ? v['s3-endpoint'] : undefined;
  let destination: Destination;
  try {
    // A folder, or s3://BUCKET/PREFIX (endpoint, credentials and region as for sync).
    destination = openDestination(dest, s3Endpoint ? { endpoint: s3Endpoint } : {});
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  try {
    return await verifyAt(destination, dest, s3Endpoint, v, json, io);
  } finally {
    await destination.close().catch(() => undefined);
  }
}

async function verifyAt(destination: Destination, dest: string, s3Endpoint: string | undefined, v: Record<string, string | boolean | undefined>, json: boolean, io: Io): Promise<number> {
  // Everything a repair needs is checked before the (long) hashing starts.
  const target = v.repair === true ? await repairTarget(destination, dest, v) : undefined;
  let report;
  try {
    report = await verify(destination, {
      onProgress: (checked, total) => {
        if (io.stderr.isTTY && !json) io.stderr.write(`\rverifying ${checked}/${total}`);
      },
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    io.stderr.write(`dataset-sync: cannot verify ${destination.label}: ${code === 'ENOENT' ? 'no manifest.csv there (has it been synced?)' : (e as Error).message}\n`);
    return 2;
  }
  if (io.stderr.isTTY && !json) io.stderr.write('\n');
  // Every --json line is an object with a `type`, as sync's events are.
  if (json) io.stdout.write(JSON.stringify({ type: 'verify', ...report }) + '\n');
  else {
    for (const p of report.missing) io.stdout.write(`missing  ${p}\n`);
    for (const p of report.changed) io.stdout.write(`changed  ${p}\n`);
    for (const p of report.extra) io.stdout.write(`extra    ${p}\n`);
    io.stdout.write(`${report.ok} of ${report.filesChecked} files OK; ${report.missing.length} missing, ${report.changed.length} changed, ${report.extra.length} extra\n`);
  }
  if (!target) {
    // Said where the fix is: a repair brings back what is missing or changed (extra files are only listed).
    if (!json && report.missing.length + report.changed.length > 0) {
      io.stderr.write(`To download the missing and changed files again: dataset-sync verify --dest ${JSON.stringify(dest)}${s3Endpoint ? ` --s3-endpoint ${s3Endpoint}` : ''} --repair\n`);
    }
    return report.missing.length + report.changed.length + report.extra.length === 0 ? 0 : 1;
  }
  if (report.missing.length + report.changed.length === 0) {
    if (!json) io.stdout.write('Nothing to repair.\n');
    return 0;
  }
  // Extra files are listed above and kept: a repair only brings back what the manifest lists.
  const display = new SyncDisplay(io.stderr, io.stderr.isTTY === true && !json);
  const lines = createJsonLineWriter(io.stdout);
  const summary = await repair(
    { ...target, dest, ...(s3Endpoint ? { s3Endpoint } : {}), tuning: tuningFromEnv() },
    (e) => {
      if (json) lines.push(e);
      else display.handle(e);
    },
    report,
  );
  lines.flush();
  if (summary.fatal) io.stderr.write(`dataset-sync: ${summary.fatal.message}\n`);
  else if (!json) io.stdout.write(`Repaired ${summary.filesDownloaded} of ${report.missing.length + report.changed.length} files; ${summary.filesFailed} failed.\n`);
  return summary.exitCode;
}

/** The service, collection and key a repair syncs from: recorded in DEST's engine state (--base-url if it has none). */
async function repairTarget(destination: Destination, dest: string, v: Record<string, string | boolean | undefined>): Promise<{ baseUrl: string; apiKey: string; collectionId: number; concurrency: number }> {
  const owner = await readOwner(destination);
  if (owner.collectionId === null) throw new UsageError(`${dest} has not been synced yet (no collection recorded): run sync first.`);
  // --base-url is for folders synced before the service was recorded; another service than the
  // recorded one is refused by the sync (exit 2) before anything is touched.
  if (typeof v['base-url'] !== 'string' && owner.baseUrl === null) throw new UsageError(`${dest} records no base URL: give --base-url.`);
  const baseUrl = typeof v['base-url'] === 'string' ? baseUrlOf(v) : owner.baseUrl!;
  const concurrency = v.concurrency === undefined ? DEFAULT_CONCURRENCY : positiveInt(String(v.concurrency), 'concurrency', CONCURRENCY.min, CONCURRENCY.max);
  return { baseUrl, apiKey: await resolveApiKey(baseUrl), collectionId: owner.collectionId, concurrency };
}

/** A collection of the list with its set counts (GET /collections/:id); null when the detail could not be had. */
type ListedCollection = CollectionSummary & { sets: CollectionDetail['sets'] | null };

/** The details, a few at a time: one request per collection, nothing downloaded. */
async function withSetCounts(client: DeliveryClient, list: CollectionSummary[]): Promise<ListedCollection[]> {
  const out: ListedCollection[] = new Array<ListedCollection>(list.length);
  let next = 0;
  const worker = async () => {
    while (next < list.length) {
      const i = next++;
      const c = list[i]!;
      try {
        out[i] = { ...c, sets: (await client.getCollection(c.id)).sets };
      } catch (e) {
        // A 401 means no detail will come: stop as the list would have. Anything else leaves this row's counts unknown.
        if (isApiError(e) && e.kind === 'auth') throw e;
        out[i] = { ...c, sets: null };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, list.length) }, worker));
  return out;
}

/** The human table: a header row, one row per collection; sizes are not in the API, so none are made up. */
export function collectionsTable(rows: ListedCollection[]): string {
  if (rows.length === 0) return 'No collections.\n';
  const count = (n: number | undefined) => (n === undefined ? '?' : String(n));
  const table = [
    ['ID', 'STATUS', 'ACCEPTED', 'IN REVIEW', 'IN PROGRESS', 'TITLE'],
    ...rows.map((c) => [String(c.id), c.status, count(c.sets?.accepted), count(c.sets?.in_review), count(c.sets?.in_progress), c.title]),
  ];
  const widths = table[0]!.map((_, col) => Math.max(...table.map((r) => r[col]!.length)));
  const numeric = [true, false, true, true, true, false];
  const lines = table.map((r) =>
    r
      .map((cell, col) => (col === r.length - 1 ? cell : numeric[col] ? cell.padStart(widths[col]!) : cell.padEnd(widths[col]!)))
      .join('  ')
      .trimEnd(),
  );
  const unknown = rows.some((c) => c.sets === null) ? '? = the service did not give that collection\'s detail.\n' : '';
  return `${lines.join('\n')}\n${unknown}Set counts by state; only accepted sets are synced. Sizes are not part of the collection detail: a sync shows them as it lists the sets.\n`;
}

export async function collectionsCommand(argv: string[], io: Io): Promise<number> {
  const v = parse(argv, { 'base-url': { type: 'string' }, json: { type: 'boolean' } });
  const baseUrl = baseUrlOf(v);
  const apiKey = await resolveApiKey(baseUrl);
  const client = createDeliveryClient({ baseUrl, apiKey, connections: 4 });
  try {
    const list = await withSetCounts(client, await client.listCollections());
    if (v.json === true) io.stdout.write(JSON.stringify({ type: 'collections', collections: list }) + '\n');
    else io.stdout.write(collectionsTable(list));
    return 0;
  } catch (e) {
    if (!isApiError(e)) throw e;
    io.stderr.write(`dataset-sync: ${e.message}\n`);
    return apiExitCode(e);
  } finally {
    await client.close();
  }
}

export async function loginCommand(argv: string[], io: Io): Promise<number> {
  const v = parse(argv, { 'base-url': { type: 'string' } });
  const baseUrl = baseUrlOf(v);
  const apiKey = await readSecretFromStdin('API key: ', io.stderr);
  if (!apiKey) {
    io.stderr.write('dataset-sync: no key on stdin (pipe it in or type it at the prompt)\n');
    return 2;
  }
  const client = createDeliveryClient({ baseUrl, apiKey, connections: 1 });
  let me;
  try {
    me = await client.me();
  } catch (e) {
    if (!isApiError(e)) throw e;
    io.stderr.write(`dataset-sync: the key could not be checked: ${e.message}\n`);
    return apiExitCode(e);
  } finally {
    await client.close();
  }
  try {
    await createKeychainStore().set(baseUrl, apiKey);
  } catch (e) {
    if (!(e instanceof SecretStoreUnavailableError)) throw e;
    io.stderr.write(`dataset-sync: the key is valid but could not be stored: ${e.message}. Set ${API_KEY_ENV} in the environment instead.\n`);
    return 2;
  }
  io.stdout.write(`Logged in to ${baseUrl} as ${me.client.name} <${me.client.email}>; key ${me.api_key.prefix || keyPrefix(apiKey)} stored in the OS keychain.\n`);
  return 0;
}

export async function logoutCommand(argv: string[], io: Io): Promise<number> {
  const v = parse(argv, { 'base-url': { type: 'string' } });
  const baseUrl = baseUrlOf(v);
  try {
    const removed = await createKeychainStore().delete(baseUrl);
    io.stdout.write(removed ? `Removed the key for ${baseUrl} from the OS keychain.\n` : `No key was stored for ${baseUrl}.\n`);
    return 0;
  } catch (e) {
    if (!(e instanceof SecretStoreUnavailableError)) throw e;
    io.stderr.write(`dataset-sync: ${e.message}\n`);
    return 2;
  }
}

export { MissingKeyError };

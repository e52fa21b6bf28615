// The headless half of `npm run demo`: the reference service with demo data on a stable port,
// and one CLI sync of the first client's first collection into demo-output/. A dataset folder
// belongs to one service (base URL) and one collection (docs/contracts.md §4), so
// the service must come back at the same address for "run it again" to be the no-op it
// promises: the port is fixed (8766, apart from `dataset-sync demo`'s 8765). When something
// else holds it, this run takes a free port and a folder of its own, and says so, instead of
// failing on the folder the stable port synced.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { startReferenceService } from '../src-service/index';

export const HEADLESS_DEMO_PORT = 8766;

export interface HeadlessDemoOptions {
  /** The repository root (bin/dataset-sync.mjs is run from there). */
  root: string;
  /** Where the dataset folders go; default `<root>/demo-output`. */
  outputDir?: string;
  /** Default HEADLESS_DEMO_PORT. */
  port?: number;
  log?: (text: string) => void;
}

/** True when 127.0.0.1:port can be listened on right now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', env, cwd });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 130 : 1)));
  });
}

export async function headlessDemo(opts: HeadlessDemoOptions): Promise<number> {
  const log = opts.log ?? ((text: string) => process.stderr.write(text));
  const stable = opts.port ?? HEADLESS_DEMO_PORT;
  const onStablePort = await portIsFree(stable);
  const service = await startReferenceService({ quiet: true, port: onStablePort ? stable : 0 }).catch(async (e: unknown) => {
    // Taken between the probe and the listen: a free port, as when the probe said so.
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    return startReferenceService({ quiet: true, port: 0 });
  });
  try {
    const port = Number(new URL(service.origin).port);
    const client = service.clients[0];
    const collection = client?.collections[0];
    if (!client || collection === undefined) throw new Error('the demo data has no client collection');
    const outputDir = opts.outputDir ?? path.join(opts.root, 'demo-output');
    const dest = path.join(outputDir, port === stable ? `collection-${collection}` : `collection-${collection}-port-${port}`);
    if (port !== stable) {
      log(
        `Port ${stable} is in use, so this demo's service runs on port ${port} and syncs into a folder of its own\n` +
          `(a dataset folder belongs to one service address). Free port ${stable} to re-run against the same folder.\n\n`,
      );
    }
    log(`Reference service on ${service.deliveryBaseUrl}\nSyncing collection ${collection} of "${client.name}" into ${dest}\n(consent records go to ${dest}.consents)\n\n`);
    const code = await run(
      process.execPath,
      [path.join(opts.root, 'bin/dataset-sync.mjs'), 'sync', '--base-url', service.deliveryBaseUrl, '--collection', String(collection), '--dest', dest],
      opts.root,
      { ...process.env, DATASET_SYNC_API_KEY: client.apiKey },
    );
    if (code === 0) {
      log(`\nDone. Check it yourself: (cd ${dest} && sha256sum -c --quiet SHA256SUMS) && echo all verified\n`);
      log(
        port === stable
          ? 'Run it again to see an incremental no-op sync ("Up to date"); `npx dataset-sync demo` keeps a service running for your own experiments.\n'
          : '`npx dataset-sync demo` keeps a service running for your own experiments.\n',
      );
    }
    return code;
  } finally {
    await service.close();
  }
}

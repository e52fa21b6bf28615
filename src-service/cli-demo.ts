// `dataset-sync demo`: serves the reference service with demo data until SIGINT/SIGTERM.
// stdout carries exactly one JSON line (machine-readable); everything for humans goes to stderr.

import { parseArgs } from 'node:util';
import { startReferenceService } from './index';

const USAGE =
  'usage: dataset-sync demo [--port P] [--sets N] [--file-size BYTES] [--seed S] [--data-dir DIR] [--media-faults] [--lazy]\n' +
  '  real demo videos by default; --file-size serves synthetic bodies of that size instead;\n' +
  '  --media-faults starts with one file of each media fault (too small, too short, wrong format, lying listings);\n' +
  '  --lazy generates the main collection\'s sets on request (large collections; --file-size default 1024, at most 65536)';
export const DEMO_DEFAULT_PORT = 8765;

interface Io {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Resolves when the demo should stop; default: the first SIGINT or SIGTERM. */
  untilStopped?: () => Promise<void>;
}

const processIo: Io = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
};

export async function runDemoCommand(argv: string[], io: Io = processIo): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        sets: { type: 'string' },
        'file-size': { type: 'string' },
        seed: { type: 'string' },
        'data-dir': { type: 'string' },
        'media-faults': { type: 'boolean' },
        lazy: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }) as { values: Record<string, string | boolean | undefined> });
  } catch (error) {
    io.stderr(`demo: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }

  const numbers: Record<string, number | undefined> = {};
  const limits: Record<string, [number, number]> = { port: [0, 65535], sets: [0, 1_000_000], 'file-size': [0, 2 ** 40], seed: [0, 2 ** 31 - 1] };
  for (const [name, [min, max]] of Object.entries(limits)) {
    const raw = values[name];
    if (typeof raw !== 'string') continue;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      io.stderr(`demo: --${name} must be an integer from ${min} to ${max}, got "${raw}"\n${USAGE}`);
      return 2;
    }
    numbers[name] = Number(raw);
  }

  const service = await startReferenceService({
    port: numbers.port ?? DEMO_DEFAULT_PORT,
    sets: numbers.sets,
    fileSize: numbers['file-size'],
    seed: numbers.seed,
    dataDir: typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined,
    mediaFaults: values['media-faults'] === true,
    lazy: values.lazy === true,
    quiet: false,
    log: io.stderr,
  }).catch((error: unknown) => {
    io.stderr(`demo: could not start the reference service: ${(error as Error).message}`);
    return undefined;
  });
  if (!service) return 2;

  io.stdout(
    JSON.stringify({
      deliveryBaseUrl: service.deliveryBaseUrl,
      recruiterBaseUrl: service.recruiterBaseUrl,
      adminBaseUrl: service.adminBaseUrl,
      adminToken: service.adminToken,
      clients: service.clients.map((c) => ({ name: c.name, apiKey: c.apiKey, collections: c.collections })),
      organizations: service.organizations.map((o) => ({ name: o.name, apiKey: o.apiKey, scopes: o.scopes })),
    }),
  );
  const main = service.clients[0];
  const collection = main?.collections[0] ?? 0;
  io.stderr(
    [
      `Reference service listening on ${service.origin} (Ctrl-C to stop).`,
      `The JSON line on stdout holds the API keys and the admin token; the demo keys are for this local service only.`,
      ``,
      `Try it (KEY = clients[0].apiKey from the JSON line):`,
      `  curl -H "Authorization: Bearer $KEY" ${service.deliveryBaseUrl}/collections`,
      `  curl -H "Authorization: Bearer $KEY" "${service.deliveryBaseUrl}/collections/${collection}/sets?per_page=5&page=1"`,
      `  curl -OJ -H "Authorization: Bearer $KEY" ${service.deliveryBaseUrl}/files/<file id>`,
      ``,
      `Sync it:`,
      `  DATASET_SYNC_API_KEY=$KEY npx dataset-sync sync --base-url ${service.deliveryBaseUrl} --collection ${collection} --dest ./dataset`,
      ``,
      `Admin (loopback only; ADMIN = adminToken from the JSON line, new on every start):`,
      `  curl -H "Authorization: Bearer $ADMIN" ${service.adminBaseUrl}/state`,
      `  curl -H "Authorization: Bearer $ADMIN" -H "Content-Type: application/json" -d '{"match": {"path": "^/files/"}, "fault": {"type": "status", "status": 503}, "times": 1}' ${service.adminBaseUrl}/faults`,
    ].join('\n'),
  );

  await (io.untilStopped ?? untilSignal)();
  io.stderr('demo: stopping');
  await service.close();
  return 0;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

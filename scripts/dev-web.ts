// `npm run dev:web`: the whole app in a normal browser, without Electron. Starts the
// reference service with demo data, builds the renderer, and serves it through the web
// bridge (real handlers, real engine, real disk) pre-connected with the demo key. Only the
// printed URL works: it carries this run's token (see web-bridge/admission.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceService } from '../src-service/index';
import { buildRenderer } from './web-bridge/build-renderer';
import { startBridge } from './web-bridge/server';

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'dataset-sync-dev-web-'));
  const service = await startReferenceService();
  const client = service.clients[0];
  if (!client) throw new Error('The reference service has no client account.');
  process.stderr.write('Building the renderer...\n');
  const rendererDir = await buildRenderer(join(work, 'renderer'));
  let pickCount = 0;
  const bridge = await startBridge({
    rendererDir,
    settingsDir: join(work, 'settings'),
    baseUrl: service.deliveryBaseUrl,
    initialKeys: { [service.deliveryBaseUrl]: client.apiKey },
    secretStoreWarning: 'Development bridge: the demo key is kept in memory only.',
    // No native dialog in a browser: each pick gets a fresh folder under the temp dir.
    pickFolderAnswer: () => join(work, 'datasets', `dataset-${++pickCount}`),
    port: Number(process.env.PORT ?? 0) || undefined,
  });
  process.stdout.write(`Dataset Sync (browser bridge) running: open ${bridge.url}\n`);
  // The demo service's keys (for this local service only), so a newcomer has what the Delivery
  // tab and the Recruiter tab ask for: the window is pre-connected to the first; the second is pasted.
  const recruiterKeys = service.organizations.map((o) => `  ${o.apiKey}  organisation "${o.name}" (${o.scopes.join(', ')})`);
  process.stderr.write(
    `Delivery service: ${service.deliveryBaseUrl}\n` +
      `  delivery key: ${client.apiKey}  account "${client.name}" (already connected in the window)\n` +
      `Recruiter service: ${service.recruiterBaseUrl}\n` +
      `  recruiter keys (paste one into the Recruiter tab):\n${recruiterKeys.join('\n')}\n` +
      `Data: ${work}\nPress Ctrl+C to stop.\n`,
  );

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await bridge.close().catch(() => undefined);
    await service.close().catch(() => undefined);
    await rm(work, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});

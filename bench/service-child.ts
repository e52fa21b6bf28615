// Runs the reference service in its own process for the benchmarks, so its CPU time and memory
// are not counted in the client being measured. argv[2] is a JSON object of ServiceOptions.
// First stdout line: {"deliveryBaseUrl","adminBaseUrl","adminToken","apiKey","collectionId"}, plus
// "videoBodies" when real video bodies were asked for; stops on SIGTERM.
import { startReferenceService, type ServiceOptions } from '../src-service/index';

const options = JSON.parse(process.argv[2] ?? '{}') as ServiceOptions;
const service = await startReferenceService({ ...options, quiet: true });
const main = service.clients[0];
if (!main || main.collections[0] === undefined) throw new Error('reference service: no main client/collection');
process.stdout.write(
  `${JSON.stringify({ deliveryBaseUrl: service.deliveryBaseUrl, adminBaseUrl: service.adminBaseUrl, adminToken: service.adminToken, apiKey: main.apiKey, collectionId: main.collections[0], videoBodies: service.videoBodies })}\n`,
);
const stop = (): void => {
  void service.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

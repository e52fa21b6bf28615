// How many pages of sets the reference service served since its stats were last reset: a
// resumed sync that walks the sets again shows here (its own request counts, not the client's).
import type { AdminClient } from '../../src-service/index';

export async function setPageRequests(admin: AdminClient): Promise<number> {
  const stats = await admin.stats();
  return Object.entries(stats.byRoute)
    .filter(([route]) => /^GET .*\/sets$/.test(route))
    .reduce((n, [, c]) => n + c, 0);
}

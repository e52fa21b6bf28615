// Hand-crafted answers for tests that make the service lie (admin `body` fault): the sets page
// the service really serves, as JSON to edit, and a throw-away dataset folder.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { mainCollection, tempDir, type Service } from './helpers';

export type FileJson = { id: number; slot_index: number; slot_key: string; filename: string; size_bytes: number; sha256: string; url: string; [k: string]: unknown };
export type SetJson = { id: number; files: FileJson[]; [k: string]: unknown };
export type PageJson = { sets: SetJson[]; [k: string]: unknown };

/** Page 1 of the main collection's accepted sets, as served. */
export async function servedPage(svc: Service): Promise<PageJson> {
  const { apiKey, collectionId } = mainCollection(svc);
  const res = await fetch(`${svc.deliveryBaseUrl}/collections/${collectionId}/sets?status=accepted&page=1&per_page=200`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return (await res.json()) as PageJson;
}

/** The fault path (below the API base) of a file's URL, anchored. */
export function filePathPattern(svc: Service, fileUrl: string): string {
  return `^${new URL(fileUrl).pathname.replace(new URL(svc.deliveryBaseUrl).pathname, '')}$`;
}

/** Runs `fn` with DEST in a fresh temp folder, removed afterwards. */
export async function withTempDest(fn: (dest: string, outer: string) => Promise<void>): Promise<void> {
  const outer = await tempDir('dsync-lies-');
  try {
    await fn(path.join(outer, 'ds'), outer);
  } finally {
    await fs.rm(outer, { recursive: true, force: true });
  }
}

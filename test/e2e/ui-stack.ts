// What a browser end-to-end test of the delivery UI runs on: startBrowserApp (the built renderer
// in real Chromium, the web bridge with the real handlers, engine and disk, and the reference
// service), not yet connected, with "Folder…" answering the stack's `dataset` folder
// (or the folder last given to `pickNext`).
import { join } from 'node:path';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';

export interface UiStack extends BrowserApp {
  /** The folder "Folder…" picks. */
  datasetDir: string;
  /** Makes "Folder…" answer `folder` from now on. */
  pickNext(folder: string): void;
}

export async function startUiStack(opts: {
  name: string;
  /** Without fileSize the service serves its real demo videos. */
  service: { seed: number; sets: number; fileSize?: number; slots?: number; mediaFaults?: boolean };
  viewport: { width: number; height: number };
}): Promise<UiStack> {
  let next: string | null = null;
  const app = await startBrowserApp({ ...opts, connected: false, pickFolderAnswer: (root) => next ?? join(root, 'dataset') });
  return Object.assign(app, { datasetDir: join(app.root, 'dataset'), pickNext: (folder: string) => void (next = folder) });
}

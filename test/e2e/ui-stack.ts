// What a browser end-to-end test of the delivery UI runs on: startBrowserApp (the built renderer
// in real Chromium, the web bridge with the real handlers, engine and disk, and the reference
// service), not yet connected, with "Folder…" answering the stack's `dataset` folder.
import { join } from 'node:path';
import { startBrowserApp, type BrowserApp } from '../support/browser-app';

export interface UiStack extends BrowserApp {
  /** The folder "Folder…" picks. */
  datasetDir: string;
}

export async function startUiStack(opts: {
  name: string;
  service: { seed: number; sets: number; fileSize: number; slots?: number };
  viewport: { width: number; height: number };
}): Promise<UiStack> {
  const app = await startBrowserApp({ ...opts, connected: false, pickFolderAnswer: (root) => join(root, 'dataset') });
  return Object.assign(app, { datasetDir: join(app.root, 'dataset') });
}

// The folder backend as the registry knows it (registry.ts): any text no scheme claims is a folder
// path; its engine state is DEST/.dataset-sync; its siblings are the folders `DEST.consents` and
// `DEST.withdrawn` beside it. As consents, a folder is resolved to its real path when opened and
// refused when that is the dataset folder or inside it (consents-dir.ts).
import path from 'node:path';
import { siblingFolder, stateDir } from '../../layout';
import type { DestinationBackend } from '../registry';
import { createLocalFolder } from './local-folder';
import type { FolderSpec } from './spec';

export const folderBackend: DestinationBackend<FolderSpec> = {
  kind: 'folder',
  example: 'a folder',
  capabilities: ['peekText', 'extendAtomic', 'warmExtensions', 'openUploadNow', 'foundEmpty', 'freeSpace', 'localRoot'],
  parse: (text) => ({ kind: 'folder', path: text }),
  label: (spec) => path.resolve(spec.path),
  stateHome: (spec) => stateDir(path.resolve(spec.path)),
  // Beside the resolved path, so '.' names '../<name>.withdrawn'.
  sibling: (spec, suffix) => ({ kind: 'folder', path: siblingFolder(spec.path, suffix) }),
  open(spec, { consentsOf }) {
    if (!consentsOf) return createLocalFolder(spec.path);
    // Only a dataset folder has a local path the consents folder could be inside.
    const dataset = consentsOf.dataset.kind === 'folder' ? consentsOf.dataset.path : null;
    return createLocalFolder(spec.path, { consents: { dataset } });
  },
};

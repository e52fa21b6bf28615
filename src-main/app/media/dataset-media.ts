// What the app does with a dataset's media for the window: its sets with their verified files
// (local-sets.ts, a question to the engine), "Show in folder", and the request handler behind the media URLs
// (media-request.ts) with one thumbnailer for the whole process. Folders only: a bucket
// dataset has no local bytes to preview (its verified files are in the bucket).
import path from 'node:path';
import type { DatasetSetsPage, DatasetSetsQuery, RevealResult } from '../../../src-shared/dataset-sets';
import type { CollectionDatasetSettings } from '../../../src-shared/ipc-contract';
import { AppError } from '../app-error';
import { hasDatasetSet, listDatasetSets } from './local-sets';
import { createMediaHandler, type MediaRequest, type MediaResponse } from './media-request';
import { Thumbnailer } from './thumbnails';
import { findVerifiedFile } from './verified-files';

export interface DatasetMediaDeps {
  /** The collection's dataset settings (throws no_folder when none is chosen). */
  folder(collectionId: number): CollectionDatasetSettings;
  showItemInFolder(path: string): void;
  /** False where no file manager can be opened (the web bridge): reveal answers the path only. */
  canShowInFolder: boolean;
  /** Plain-words notices (ffmpeg missing), once per process. */
  onNotice(message: string): void;
  /** The media URLs' path prefix ('/' in Electron, '/media/<token>/' on the bridge). */
  pathPrefix?: string;
}

export class DatasetMedia {
  readonly handle: (request: MediaRequest) => Promise<MediaResponse>;
  private readonly thumbnails: Thumbnailer;

  constructor(private readonly deps: DatasetMediaDeps) {
    this.thumbnails = new Thumbnailer({ onNotice: deps.onNotice });
    this.handle = createMediaHandler({
      datasetFolder: (collectionId) => {
        try {
          return this.localFolder(collectionId);
        } catch {
          return null;
        }
      },
      thumbnails: this.thumbnails,
      ...(deps.pathPrefix ? { pathPrefix: deps.pathPrefix } : {}),
    });
  }

  private localFolder(collectionId: number): string {
    const dataset = this.deps.folder(collectionId);
    if (dataset.bucket) throw new AppError('refused', `The dataset of collection ${collectionId} is a bucket (${dataset.dest}): previews and playback need a dataset folder on this computer.`);
    return dataset.dest;
  }

  sets(collectionId: number, query: DatasetSetsQuery): Promise<DatasetSetsPage> {
    return listDatasetSets(this.localFolder(collectionId), query);
  }

  /** A set's folder, or one of its verified files; refused unless the set (or file) is in the dataset's listing. */
  async reveal(collectionId: number, setId: number, filename?: string): Promise<RevealResult> {
    const dest = this.localFolder(collectionId);
    let target: string;
    if (filename !== undefined) {
      const found = await findVerifiedFile(dest, setId, filename);
      if (!found.ok) throw new AppError('refused', `"${filename}" of set ${setId} is not a verified file of this dataset (sync or repair to fetch it).`);
      target = found.file.absPath;
    } else {
      if (!hasDatasetSet(dest, setId)) throw new AppError('refused', `Set ${setId} is not in this dataset.`);
      target = path.join(dest, 'sets', String(setId));
    }
    if (this.deps.canShowInFolder) this.deps.showItemInFolder(target);
    return { path: target, shown: this.deps.canShowInFolder };
  }
}

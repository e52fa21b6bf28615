// Where the window loads a dataset file's thumbnail or video from. Main knows the mode: in the
// app, its dataset-media:// protocol; in a browser on the web bridge, /media/<token>/ of the
// bridge. Asked once (media:base), then every URL is built here and nowhere else.
import { invoke } from './api';

let base: Promise<string | null> | null = null;

export function mediaBase(): Promise<string | null> {
  base ??= invoke('media:base', undefined).then((r) => (r.ok ? r.value : null));
  return base;
}

export function mediaUrl(baseUrl: string, kind: 'video' | 'thumb', collectionId: number, setId: number, filename: string): string {
  return `${baseUrl}${kind}/${collectionId}/${setId}/${encodeURIComponent(filename)}`;
}

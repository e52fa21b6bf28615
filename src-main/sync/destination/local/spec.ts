// How a folder destination is named (settings, --dest, --consents-dir): its path. Any text that
// no registered scheme claims is a folder path (backend.ts).

export interface FolderSpec {
  kind: 'folder';
  /** As given; opened by its absolute path (path.resolve). */
  path: string;
}

import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layers from './eslint/import-layers.js';

/**
 * The import graph, one way: renderer -> shared; engine (sync, api) -> shared; app -> engine,
 * shared; ipc -> app. The app, the CLI and the engine thread reach the engine through its one
 * face (sync/engine.ts). The renderer and the shared contract carry no Node or Electron; the
 * reference service shares nothing with the app. test/app/layers.test.ts proves each rule fires.
 */
export const LAYERS = [
  {
    name: 'renderer',
    files: ['src-renderer/'],
    allowFolders: ['src-renderer/', 'src-shared/'],
    denyPackages: ['electron'],
    denyNodeBuiltins: true,
    why: 'The window talks only to the typed bridge and imports the shared contract (src-shared), nothing of main.',
  },
  {
    name: 'shared',
    files: ['src-shared/'],
    allowFolders: ['src-shared/'],
    allowPackages: ['zod'],
    why: 'src-shared holds types and schemas both processes import: no Node, no Electron, nothing of either side.',
  },
  {
    name: 'engine',
    files: ['src-main/sync/', 'src-main/api/'],
    denyFolders: ['src-main/app/', 'src-main/ipc/', 'src-main/cli/', 'src-renderer/', 'src-service/'],
    denyPackages: ['electron'],
    why: 'The engine and the API clients take their dependencies as arguments; they never reach up into the app, IPC or Electron.',
  },
  {
    name: 'destination seam',
    files: ['src-main/sync/'],
    // The bucket implementation stages each upload in a local file (the held bytes of a resume, hashed before
    // the rest is asked for), so it is an implementation with local files too.
    exceptFiles: ['src-main/sync/destination/local/', 'src-main/sync/destination/s3/', 'src-main/sync/state/'],
    denyPackages: ['fs', 'node:fs'],
    why:
      'The engine reaches the dataset only through the Destination interface (src-main/sync/destination/destination.ts); ' +
      'file calls belong to the implementations (destination/local/, the bucket\'s staging in destination/s3/) and the engine state files (state/).',
  },
  {
    name: 'engine face',
    files: ['src-main/app/', 'src-main/cli/', 'src-main/ipc/', 'src-main/engine-worker.ts', 'src-main/index.ts'],
    denyFolders: ['src-main/sync/'],
    allowFiles: ['src-main/sync/engine.ts'],
    why:
      'Callers of the engine import only its face, src-main/sync/engine.ts (types included), so the engine\'s files can be ' +
      'split, renamed and rewritten behind it; a missing export is added to the face, not imported around it.',
  },
  {
    name: 'store by intent',
    files: ['src-main/sync/'],
    exceptFiles: ['src-main/sync/state/'],
    denyFolders: ['src-main/sync/state/set-store', 'src-main/sync/state/stage-results', 'src-main/sync/state/head-table'],
    why:
      'The engine writes its state through the EngineStore (src-main/sync/state/engine-store.ts), whose writes say what happened; ' +
      'the tables behind it (set-store.ts put/remove, stage-results.ts, head-table.ts) are the store\'s own, so no caller edits a record and puts it back.',
  },
  {
    name: 'app',
    files: ['src-main/app/'],
    denyFolders: ['src-main/ipc/', 'src-main/cli/', 'src-renderer/', 'src-service/'],
    denyPackages: ['electron'],
    why: 'The app layer is used by the IPC layer, never the other way round, and runs in plain Node (tests, the browser bridge).',
  },
  {
    name: 'stores',
    files: ['src-main/settings/', 'src-main/secrets/'],
    denyFolders: ['src-main/app/', 'src-main/ipc/', 'src-main/cli/', 'src-main/sync/', 'src-renderer/', 'src-service/'],
    why: 'Settings and secret stores are used by the app, the CLI and the engine\'s callers; they depend on none of them.',
  },
  {
    name: 'plain Node',
    files: ['src-main/ipc/', 'src-main/cli/', 'src-main/secrets/'],
    denyFolders: ['src-renderer/', 'src-service/'],
    denyPackages: ['electron'],
    why: 'Only index.ts, preload.ts and the electron-store settings import Electron; the rest runs in plain Node.',
  },
  {
    name: 'service',
    files: ['src-service/'],
    denyFolders: ['src-main/', 'src-shared/', 'src-renderer/'],
    why: 'src-service and the app are written independently from the spec: no shared code, types included.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'out/', 'dist/', 'test-artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', window: 'readonly', document: 'readonly' },
    },
    plugins: { layers },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'layers/import-layers': ['error', LAYERS],
    },
  },
);

import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'out/', 'dist/', 'test-artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', window: 'readonly', document: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The engine, clients, CLI, IPC handlers and app controllers run in plain Node (tests, CLI,
    // browser bridge): they must never import Electron. Only index.ts, preload.ts and the
    // electron-store settings constructor do.
    files: ['src-main/api/**', 'src-main/sync/**', 'src-main/cli/**', 'src-main/ipc/**', 'src-main/app/**', 'src-main/secrets/**'],
    rules: { 'no-restricted-imports': ['error', { paths: ['electron'] }] },
  },
  {
    // The renderer talks only to the typed bridge; from src-main it may import the IPC contract types and nothing else.
    files: ['src-renderer/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: ['electron'], patterns: [{ regex: 'src-main/(?!(ipc/contract|ipc/recruiter-contract|api/types|api/recruiter-types|sync/events)(\\.ts)?$)', message: 'The renderer may import only IPC contract types from src-main.' }] }],
    },
  },
  {
    // src-service and src-main are written independently from the spec: no shared code.
    files: ['src-service/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/src-main/**'] }] },
  },
);

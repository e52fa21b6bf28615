// electron-vite 5: main (ESM, package.json is "type": "module"), a sandboxed preload (must be
// CommonJS: sandboxed preloads cannot load ES modules) and the React renderer.
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

// electron-vite runs from the project root (npm scripts); paths are resolved from there.
const root = process.cwd();

// The dev server needs an inline script (React refresh) that the production CSP meta tag
// forbids; in dev the main process sends a development CSP header for the dev server URL
// instead, so the meta tag is dropped from the served page only.
const devWithoutCspMeta: Plugin = {
  name: 'dataset-sync:dev-without-csp-meta',
  apply: 'serve',
  transformIndexHtml: (html) => html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>\s*/i, ''),
};

export default defineConfig(({ mode }) => ({
  main: {
    // Only dev (`electron-vite dev`) and demo (`--mode demo`, npm run demo) builds carry the
    // reference service for --demo; a production build drops it (see src-main/index.ts).
    define: { __DATASET_SYNC_DEMO_BUILD__: JSON.stringify(mode !== 'production') },
    build: {
      outDir: 'out/main',
      rollupOptions: {
        // The engine thread (issue #21): its own entry beside index.js, started per sync by
        // src-main/app/engine-thread/worker-job.ts as new URL('./engine-worker.js', import.meta.url).
        input: { index: resolve(root, 'src-main/index.ts'), 'engine-worker': resolve(root, 'src-main/engine-worker.ts') },
        // package.json "main" points at out/main/index.js; .js is ESM under "type": "module".
        output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // Sandboxed preloads may require('electron') only: bundle everything else in.
      externalizeDeps: false,
      rollupOptions: {
        input: { preload: resolve(root, 'src-main/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].js', inlineDynamicImports: true },
      },
    },
  },
  renderer: {
    root: resolve(root, 'src-renderer'),
    plugins: [react(), devWithoutCspMeta],
    build: {
      outDir: resolve(root, 'out/renderer'),
      rollupOptions: { input: resolve(root, 'src-renderer/index.html') },
    },
  },
}));

// Builds the renderer (src-renderer) with Vite for browser tests: the same React plugin as
// electron.vite.config.ts, relative asset paths (they work over http and file://).
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { build } from 'vite';

export const RENDERER_ROOT = fileURLToPath(new URL('../../src-renderer/', import.meta.url));

export async function buildRenderer(outDir: string): Promise<string> {
  await build({
    root: RENDERER_ROOT,
    base: './',
    configFile: false,
    logLevel: 'warn',
    plugins: [react()],
    build: { outDir, emptyOutDir: true, sourcemap: false, minify: false, reportCompressedSize: false },
  });
  return outDir;
}

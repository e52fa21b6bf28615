// A local ESLint rule that keeps the import graph one-way (in the manner of VS Code's
// code-layering rule): each layer names the folders it may (or may not) import from and which
// packages it may use. Relative imports are resolved against the importing file, so
// "../ipc/x" and "../../src-main/ipc/x" are judged alike. Layers are declared in
// eslint.config.js; a file may fall in several (e.g. src-main/app/ and "no Electron"). A layer's
// `exceptFiles` are folders inside its `files` that it does not cover; its `allowFiles` are files
// of a denied folder it may import all the same (a folder's one public entry, such as the
// engine's face), named with their extension and matched with or without it.
import { builtinModules } from 'node:module';
import path from 'node:path';

const NODE_BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

const within = (rel, folder) => rel === folder.replace(/\/$/, '') || rel.startsWith(folder.endsWith('/') ? folder : `${folder}/`);

/** `rel` (an import resolved, with or without its extension: `engine`, `engine.js`) is the file `file`. */
const withoutExtension = (p) => p.replace(/\.[cm]?[jt]sx?$/, '');
const isFile = (rel, file) => withoutExtension(rel) === withoutExtension(file);

function packageName(source) {
  const parts = source.split('/');
  return source.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** What is wrong with `source` imported from `file` under `layer`, or null. */
function violation(layer, source, fileDir, cwd) {
  if (source.startsWith('.') || source.startsWith('/')) {
    const rel = path.relative(cwd, path.resolve(fileDir, source)).split(path.sep).join('/');
    if (rel.startsWith('..')) return null;
    if (layer.allowFolders && !layer.allowFolders.some((f) => within(rel, f))) return `may import only from ${layer.allowFolders.join(', ')}, not ${rel}`;
    const denied = layer.denyFolders?.find((f) => within(rel, f));
    if (!denied || layer.allowFiles?.some((f) => isFile(rel, f))) return null;
    return `may not import from ${denied} (${rel})${layer.allowFiles ? `, only ${layer.allowFiles.join(', ')}` : ''}`;
  }
  const name = packageName(source);
  if (layer.denyNodeBuiltins && NODE_BUILTINS.has(name)) return `may not import Node's ${name}`;
  if (layer.allowPackages && !layer.allowPackages.includes(name)) return `may use only the packages ${layer.allowPackages.join(', ')}, not ${name}`;
  if (layer.denyPackages?.includes(name)) return `may not import ${name}`;
  return null;
}

export const importLayers = {
  meta: {
    type: 'problem',
    docs: { description: 'Keeps the import graph between the app\'s layers one-way.' },
    schema: [{ type: 'array', items: { type: 'object' } }],
    messages: { layer: '{{layer}}: {{file}} {{problem}}. {{why}}' },
  },
  create(context) {
    const cwd = context.cwd;
    const file = path.relative(cwd, context.filename).split(path.sep).join('/');
    const layers = (context.options[0] ?? []).filter(
      (layer) => layer.files.some((f) => within(file, f)) && !(layer.exceptFiles ?? []).some((f) => within(file, f)),
    );
    if (layers.length === 0) return {};
    const fileDir = path.dirname(context.filename);
    const check = (node) => {
      const source = node.source;
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      for (const layer of layers) {
        const problem = violation(layer, source.value, fileDir, cwd);
        if (problem) context.report({ node: source, messageId: 'layer', data: { layer: layer.name, file, problem, why: layer.why } });
      }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

export default { rules: { 'import-layers': importLayers } };

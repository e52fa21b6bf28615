// Every package the code imports is declared in package.json: a package that only works
// because something else pulled it into node_modules breaks on the next clean install.
// Scans the source folders for bare imports (static, dynamic, require, createRequire) with
// TypeScript's own pre-parser, and fails naming each undeclared package and where it is used.
// Node builtins (with or without `node:`) and the package's own name are fine.
//   npx tsx scripts/check-imports.ts [--root DIR]
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const SCANNED_FOLDERS = ['src-main', 'src-renderer', 'src-service', 'src-shared', 'scripts', 'bin', 'bench', 'test'];
const SOURCE_FILE = /\.(?:[cm]?[jt]s|tsx|jsx)$/;
const SKIPPED = new Set(['node_modules', 'out', 'dist', 'test-artifacts']);

export interface UndeclaredImport {
  packageName: string;
  files: string[];
}

function sourceFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // a folder this checkout does not have
  }
  return entries.flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return SOURCE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function isCreateRequireCall(node: ts.Expression): boolean {
  return ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'createRequire';
}

/** createRequire(url)('pkg') and createRequire(url).resolve('pkg'), which TypeScript's pre-parser does not report. */
function createRequireSpecifiers(file: string, text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression;
      if (isCreateRequireCall(callee) || (ts.isPropertyAccessExpression(callee) && callee.name.text === 'resolve' && isCreateRequireCall(callee.expression))) {
        found.push(node.arguments[0].text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false));
  return found;
}

function specifiers(file: string, text: string): string[] {
  const found = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
  return text.includes('createRequire') ? [...found, ...createRequireSpecifiers(file, text)] : found;
}

/** 'react-dom/client' -> 'react-dom', '@scope/pkg/sub' -> '@scope/pkg'; null for relative, absolute, builtin or URL specifiers. */
export function packageOf(specifier: string): string | null {
  const bare = specifier.split('?')[0] ?? '';
  if (bare === '' || bare.startsWith('.') || bare.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(bare)) return null;
  const parts = bare.split('/');
  const name = bare.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? '');
  return builtinModules.includes(name) ? null : name;
}

export function findUndeclaredImports(root: string): UndeclaredImport[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  const declared = new Set<string>([String(manifest.name)]);
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
    for (const name of Object.keys((manifest[field] as Record<string, string> | undefined) ?? {})) declared.add(name);
  }
  const rootFiles = readdirSync(root).filter((name) => SOURCE_FILE.test(name)).map((name) => join(root, name));
  const files = [...rootFiles, ...SCANNED_FOLDERS.flatMap((folder) => sourceFiles(join(root, folder)))];
  const undeclared = new Map<string, Set<string>>();
  for (const file of files) {
    for (const specifier of specifiers(file, readFileSync(file, 'utf8'))) {
      const name = packageOf(specifier);
      if (name && !declared.has(name)) {
        let where = undeclared.get(name);
        if (!where) undeclared.set(name, (where = new Set()));
        where.add(relative(root, file));
      }
    }
  }
  return [...undeclared].sort(([a], [b]) => a.localeCompare(b)).map(([packageName, where]) => ({ packageName, files: [...where].sort() }));
}

function main(): void {
  const at = process.argv.indexOf('--root');
  const root = at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : fileURLToPath(new URL('..', import.meta.url));
  const undeclared = findUndeclaredImports(root);
  if (undeclared.length === 0) {
    process.stdout.write('check-imports: every imported package is declared in package.json.\n');
    return;
  }
  for (const { packageName, files } of undeclared) {
    process.stderr.write(`check-imports: "${packageName}" is imported but not declared in package.json (${files.join(', ')})\n`);
  }
  process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();

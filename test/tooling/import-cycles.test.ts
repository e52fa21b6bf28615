// No import loops between our own modules (issue 23, point 14: ipc-contract.ts and
// recruiter-ipc-contract.ts imported each other). A loop makes the order modules initialise in
// depend on which one is imported first, and ties modules that should stand alone. Relative
// imports (type-only ones too) of every source folder, read with TypeScript's pre-parser.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const FOLDERS = ['src-main', 'src-renderer', 'src-service', 'src-shared', 'scripts', 'bin'];

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(p);
    return /\.(m?ts|tsx)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [resolve(p)] : [];
  });
}

function target(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  return [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((c) => /\.(m?ts|tsx)$/.test(c) && existsSync(c)) ?? null;
}

/** Every loop, as the chain of files from a module back to itself. */
function importCycles(files: string[]): string[][] {
  const graph = new Map(files.map((f) => [f, ts.preProcessFile(readFileSync(f, 'utf8'), true, true).importedFiles.flatMap((i) => target(f, i.fileName) ?? [])]));
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

describe('imports', () => {
  it('no module imports itself through others', () => {
    const cycles = importCycles(FOLDERS.flatMap((f) => sources(f)));
    expect(cycles.map((c) => c.map((f) => relative(process.cwd(), f)).join(' -> '))).toEqual([]);
  });
});

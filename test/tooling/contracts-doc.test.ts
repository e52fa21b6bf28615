// The contracts live in the repository (issue 23, point 14): comments cite docs/contracts.md,
// never a document outside the repository (shared/DESIGN.md, ../shared/spec/...), and every
// section they cite exists there.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FOLDERS = ['src-main', 'src-renderer', 'src-service', 'src-shared', 'scripts', 'bin', 'bench', 'test'];
const OUTSIDE = /shared\/DESIGN|\bDESIGN \d|\.\.\/shared\/spec\//;

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return ['node_modules', 'out', 'test-artifacts'].includes(e.name) ? [] : files(p);
    return /\.(m?[jt]s|tsx|md)$/.test(e.name) ? [p] : [];
  });
}

describe('docs/contracts.md', () => {
  const all = [...FOLDERS.flatMap(files), 'README.md'];
  const doc = readFileSync('docs/contracts.md', 'utf8');
  const sections = new Set([...doc.matchAll(/^## (\d+)\. /gm)].map((m) => m[1]));

  it('is what the code cites: no comment points outside the repository', () => {
    const outside = all.filter((f) => f !== 'test/tooling/contracts-doc.test.ts').flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => (OUTSIDE.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(outside).toEqual([]);
  });

  it('has every section the code cites', () => {
    const cited = new Set(all.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/docs\/contracts\.md §(\d+)/g)].map((m) => m[1]!)));
    expect(cited.size).toBeGreaterThan(3);
    for (const n of cited) expect(sections, `§${n}`).toContain(n);
  });

  it('covers the layout, the CLI and its exit codes, the JSON events, the engine rules and the API', () => {
    for (const heading of ['Dataset layout', 'Headless CLI', 'Exit codes', 'JSON events', 'Engine rules', "What the code relies on in the service's API", 'Design decisions']) {
      expect(doc).toMatch(new RegExp(`^#{2,3} (\\d+\\. )?${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    }
    for (const planned of ['participants.csv', 'media.csv', 'croissant.json', 's3://BUCKET/PREFIX']) expect(doc).toContain(planned);
  });
});

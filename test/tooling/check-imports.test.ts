// scripts/check-imports.ts: CI fails on a package the code imports but package.json does not declare.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findUndeclaredImports, packageOf } from '../../scripts/check-imports';

const run = promisify(execFile);
let fixture: string;

beforeAll(async () => {
  fixture = await mkdtemp(join(tmpdir(), 'ds-check-imports-'));
  await writeFile(join(fixture, 'package.json'), JSON.stringify({ name: 'fixture-app', dependencies: { react: '1' }, devDependencies: { '@scope/tool': '1' }, optionalDependencies: { keytar: '1' } }));
  await mkdir(join(fixture, 'src-main', 'deep'), { recursive: true });
  await mkdir(join(fixture, 'test'), { recursive: true });
  await mkdir(join(fixture, 'node_modules', 'x'), { recursive: true });
  await writeFile(
    join(fixture, 'src-main', 'deep', 'a.ts'),
    [
      "import React from 'react';",
      "import { readFile } from 'node:fs/promises';",
      "import path from 'path';",
      "import type { Tool } from '@scope/tool/sub';",
      "import { local } from './local';",
      "import self from 'fixture-app/lib';",
      "import { thing } from 'left-pad';",
      "// import { commented } from 'in-a-comment';",
      "const later = await import('lazy-pkg');",
      "const keytar = createRequire(import.meta.url)('keytar');",
      "const native = createRequire(import.meta.url)('native-pkg');",
      "const where = createRequire(import.meta.url).resolve('resolved-pkg');",
    ].join('\n'),
  );
  await writeFile(join(fixture, 'test', 'b.test.mjs'), "const undici = require('undici/lib');\nexport { default } from '@other/scope';\n");
  await writeFile(join(fixture, 'node_modules', 'x', 'index.js'), "require('never-scanned');\n");
});

afterAll(async () => {
  if (fixture) await rm(fixture, { recursive: true, force: true });
});

describe('check-imports', () => {
  it('names each undeclared package and where it is imported; builtins, relative paths, comments and self-references pass', () => {
    expect(findUndeclaredImports(fixture)).toEqual([
      { packageName: '@other/scope', files: ['test/b.test.mjs'] },
      { packageName: 'lazy-pkg', files: ['src-main/deep/a.ts'] },
      { packageName: 'left-pad', files: ['src-main/deep/a.ts'] },
      { packageName: 'native-pkg', files: ['src-main/deep/a.ts'] },
      { packageName: 'resolved-pkg', files: ['src-main/deep/a.ts'] },
      { packageName: 'undici', files: ['test/b.test.mjs'] },
    ]);
    expect(packageOf('node:test')).toBeNull();
    expect(packageOf('/@vite/client')).toBeNull();
    expect(packageOf('react-dom/client')).toBe('react-dom');
  });

  it('passes on this repository', () => {
    expect(findUndeclaredImports(process.cwd())).toEqual([]);
  });

  it('as a command: exits 1 and names the package', async () => {
    const script = join(process.cwd(), 'scripts', 'check-imports.ts');
    const failed = await run(process.execPath, ['--import', 'tsx', script, '--root', fixture]).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain('"left-pad" is imported but not declared in package.json (src-main/deep/a.ts)');
    const ok = await run(process.execPath, ['--import', 'tsx', script]);
    expect(ok.stdout).toContain('every imported package is declared');
  });
});

// The import-graph lint (eslint.config.js, eslint/import-layers.js) fires on each kind of
// violation and stays quiet on what is allowed, checked through ESLint's Node API on snippets
// placed (virtually) in each layer's folder.
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport {};\n`, { filePath: `${root}/${file}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'layers/import-layers').map((m) => m.message);
}

const REFUSED: Array<[string, string, RegExp]> = [
  ['src-renderer/x.tsx', "import { createHandlers } from '../src-main/ipc/handlers';", /renderer: .* may import only from src-renderer\/, src-shared\//],
  ['src-renderer/stores/x.ts', "import { runSync } from '../../src-main/sync/engine';", /not src-main\/sync\/engine/],
  ['src-renderer/x.ts', "import { readFile } from 'node:fs/promises';", /may not import Node's node:fs/],
  ['src-renderer/x.ts', "import { ipcRenderer } from 'electron';", /may not import electron/],
  ['src-renderer/x.ts', "export * from '../src-main/app/services';", /renderer:/],
  ['src-shared/x.ts', "import { join } from 'node:path';", /shared: .* may use only the packages zod/],
  ['src-shared/x.ts', "import type { AppServices } from '../src-main/app/services';", /shared: .* may import only from src-shared\//],
  ['src-main/sync/x.ts', "import { AppError } from '../app/app-error';", /engine: .* may not import from src-main\/app\//],
  ['src-main/sync/x.ts', "const m = await import('../ipc/handlers');", /engine: .* may not import from src-main\/ipc\//],
  ['src-main/api/x.ts', "import { IpcFailure } from '../ipc/ipc-failure';", /engine: .* src-main\/ipc\//],
  ['src-main/api/x.ts', "import { net } from 'electron';", /engine: .* may not import electron/],
  ['src-main/sync/x.ts', "import { readFile } from 'node:fs/promises';", /destination seam: .* may not import node:fs/],
  ['src-main/sync/x.ts', "import { lstatSync } from 'node:fs';", /destination seam: .* may not import node:fs/],
  ['src-main/sync/destination/x.ts', "import fs from 'fs';", /destination seam: .* may not import fs/],
  ['src-main/sync/x.ts', "const fs = await import('fs/promises');", /destination seam: .* may not import fs/],
  ['src-main/app/x.ts', "import { verifyDataset } from '../sync/verify';", /engine face: .* may not import from src-main\/sync\/ \(src-main\/sync\/verify\), only src-main\/sync\/engine\.ts/],
  ['src-main/app/media/x.ts', "import type { StateQueries } from '../../sync/state/queries';", /engine face: .* \(src-main\/sync\/state\/queries\)/],
  ['src-main/cli/x.ts', "import { loadState } from '../sync/state';", /engine face: src-main\/cli\/x\.ts may not import from src-main\/sync\/ \(src-main\/sync\/state\)/],
  ['src-main/cli/x.ts', "import { openDestination } from '../sync/destination/open';", /engine face: .* \(src-main\/sync\/destination\/open\)/],
  ['src-main/cli/x.ts', "import { runSync } from '../sync/run-sync.js';", /engine face: .* \(src-main\/sync\/run-sync\.js\)/],
  ['src-main/engine-worker.ts', "import { runRepair } from './sync/repair';", /engine face: src-main\/engine-worker\.ts .* \(src-main\/sync\/repair\)/],
  ['src-main/ipc/x.ts', "export { verifyFolder } from '../sync/verify';", /engine face: /],
  ['src-main/index.ts', "const { stateDir } = await import('./sync/layout');", /engine face: src-main\/index\.ts /],
  ['src-main/sync/x.ts', "import { SetStore } from './state/set-store';", /store by intent: .* may not import from src-main\/sync\/state\/set-store/],
  ['src-main/sync/media/x.ts', "import { writeHeadRow } from '../state/head-table';", /store by intent: .* may not import from src-main\/sync\/state\/head-table/],
  ['src-main/sync/x.ts', "import { StageResults } from './state/stage-results';", /store by intent: .* may not import from src-main\/sync\/state\/stage-results/],
  ['src-main/app/x.ts', "import { IpcFailure } from '../ipc/ipc-failure';", /app: .* may not import from src-main\/ipc\//],
  ['src-main/app/x.ts', "export { createHandlers } from '../ipc/handlers';", /app: /],
  ['src-main/app/x.ts', "import { shell } from 'electron';", /app: .* may not import electron/],
  ['src-main/secrets/x.ts', "import { safeStorage } from 'electron';", /plain Node: .* may not import electron/],
  ['src-main/settings/x.ts', "import { ConnectionManager } from '../app/connection';", /stores: .* may not import from src-main\/app\//],
  ['src-service/x.ts', "import type { Me } from '../src-main/api/types';", /service: .* may not import from src-main\//],
  ['src-service/x.ts', "import { SETTINGS_DEFAULTS } from '../src-shared/settings';", /service: .* may not import from src-shared\//],
];

const ALLOWED: Array<[string, string]> = [
  ['src-renderer/x.tsx', "import type { IpcResult } from '../src-shared/ipc-contract';\nimport { create } from 'zustand';\nimport { useState } from 'react';"],
  ['src-main/sync/x.ts', "import type { EngineStore } from './state/engine-store';\nimport type { LocalSet } from './state/records';"],
  ['src-main/sync/state/x.ts', "import { SetStore } from './set-store';"],
  ['src-shared/x.ts', "import { z } from 'zod';\nimport { integer } from './schema-kit';"],
  ['src-main/sync/x.ts', "import { createDeliveryClient } from '../api/delivery-client';\nimport path from 'node:path';"],
  ['src-main/sync/destination/local/x.ts', "import { lstatSync } from 'node:fs';\nimport { readFile } from 'node:fs/promises';"],
  ['src-main/sync/state/x.ts', "import { openSync } from 'node:fs';"],
  ['src-main/api/x.ts', "import { readFile } from 'node:fs/promises';"],
  ['src-main/app/x.ts', "import { runSync } from '../sync/engine';\nimport type { SettingsView } from '../../src-shared/settings';"],
  ['src-main/app/media/x.ts', "import { queryState, type StateQueries } from '../../sync/engine';"],
  ['src-main/cli/x.ts', "import { sync, verify, type Destination } from '../sync/engine';\nimport { repair } from '../sync/engine.js';"],
  ['src-main/engine-worker.ts', "import { createPauseGate, runSync } from './sync/engine';\nimport { openBucketRun } from './app/bucket-locations';"],
  ['src-main/ipc/x.ts', "import type { VerifyReport } from '../../src-shared/sync-events';\nimport type { EngineFace } from '../sync/engine';"],
  ['src-main/ipc/x.ts', "import { AppError } from '../app/app-error';\nimport { coreArgSchemas } from '../../src-shared/ipc-contract';"],
];

describe('import layers', () => {
  it.each(REFUSED)('%s: %s is refused', async (file, code, message) => {
    const errors = await layerErrors(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
  });

  it.each(ALLOWED)('%s may: %s', async (file, code) => {
    expect(await layerErrors(file, code)).toEqual([]);
  });
});

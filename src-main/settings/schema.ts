// The one schema of the app's non-secret settings, shared by electron-store (in Electron)
// and conf (in Node tests and the browser bridge). API keys never go here.

export interface StoredCollectionDataset {
  dest: string;
  consentsDir?: string;
}

export interface StoredSettings {
  baseUrl: string | null;
  recruiterBaseUrl: string | null;
  concurrency: number;
  autoSyncMinutes: number | null;
  excludeGold: boolean;
  collections: Record<string, StoredCollectionDataset>;
}

export const SETTINGS_DEFAULTS: StoredSettings = {
  baseUrl: null,
  recruiterBaseUrl: null,
  concurrency: 4,
  autoSyncMinutes: null,
  excludeGold: false,
  collections: {},
};

const absolutePath = { type: 'string', minLength: 1, maxLength: 4096 } as const;
const urlOrNull = { anyOf: [{ type: 'null' }, { type: 'string', minLength: 1, maxLength: 2048 }] } as const;

/** JSON Schema (draft 2020-12) of each top-level property, as conf / electron-store expect. */
export const SETTINGS_SCHEMA = {
  baseUrl: { ...urlOrNull, default: null },
  recruiterBaseUrl: { ...urlOrNull, default: null },
  concurrency: { type: 'integer', minimum: 1, maximum: 16, default: 4 },
  autoSyncMinutes: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 15, maximum: 60 }], default: null },
  excludeGold: { type: 'boolean', default: false },
  collections: {
    type: 'object',
    default: {},
    // Keyed by collection id.
    propertyNames: { pattern: '^[1-9][0-9]{0,15}$' },
    additionalProperties: {
      type: 'object',
      required: ['dest'],
      additionalProperties: false,
      properties: { dest: absolutePath, consentsDir: absolutePath },
    },
  },
} as const;

/** Unknown top-level keys are refused, so a stray secret cannot be written by mistake. */
export const SETTINGS_ROOT_SCHEMA = { additionalProperties: false } as const;

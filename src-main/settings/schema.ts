// The settings file's JSON schema for conf / electron-store, generated from the one zod
// declaration in src-shared/settings.ts (conf wants it per top-level property).
import { z } from 'zod';
import { storedSettingsSchema } from '../../src-shared/settings';

export { SETTINGS_DEFAULTS, type StoredSettings } from '../../src-shared/settings';

const generated = z.toJSONSchema(storedSettingsSchema, { target: 'draft-2020-12' }) as { properties: Record<string, unknown> };

/** JSON Schema (draft 2020-12) of each top-level property. */
export const SETTINGS_SCHEMA = generated.properties;

/** Unknown top-level keys are refused, so a stray secret cannot be written by mistake. */
export const SETTINGS_ROOT_SCHEMA = { additionalProperties: false } as const;

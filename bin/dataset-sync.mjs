#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx so `npx dataset-sync` works right after `npm install`.
import { register } from 'tsx/esm/api';

register();
await import('../src-main/cli/main.ts');

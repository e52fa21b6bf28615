// Imported first by main.tsx, before any shared schema is built. The window's CSP forbids eval:
// without this, zod would probe `new Function` when the first object schema is built, and the
// blocked probe shows as a CSP violation in the console. The interpreted parser is plenty fast
// for the few checks the window makes; the main process and the CLI keep zod's compiled parser.
import { z } from 'zod';

z.config({ jitless: true });

// Finds an API key, or a long part of it, in text: the check of issue 15 item 3 ("the key never
// appears in text that came from a server"). Reused by every test that greps output, files or
// IPC payloads for a key: `expect(keyLeaksIn(text, apiKey)).toEqual([])`. A "long part" is a
// run of the secret as long as the redactor's (api/redact.ts: 48 bits, 12 characters of a hex
// secret, at least 8); pass `runLength` to look for shorter ones.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { redactedRunLength, secretPartOf } from '../../src-main/api/redact';
import { listFiles } from '../engine/helpers';

/** The runs of the key's secret part (`runLength` characters each) that occur in `text`; [] when none does. */
export function keyLeaksIn(text: string, apiKey: string, runLength = redactedRunLength(apiKey)): string[] {
  const secret = secretPartOf(apiKey);
  if (secret.length < runLength) return text.includes(secret) ? [secret] : [];
  const found: string[] = [];
  for (let i = 0; i + runLength <= secret.length; i++) {
    const run = secret.slice(i, i + runLength);
    if (text.includes(run)) found.push(run);
  }
  return found;
}

/** Every file below `dir` (recursively) that holds a run of the key, with the runs found. */
export async function keyLeaksInTree(dir: string, apiKey: string): Promise<Array<{ file: string; runs: string[] }>> {
  const out: Array<{ file: string; runs: string[] }> = [];
  for (const file of await listFiles(dir)) {
    const runs = keyLeaksIn(await fs.readFile(path.join(dir, file), 'latin1'), apiKey);
    if (runs.length > 0) out.push({ file, runs });
  }
  return out;
}

// Finds an API key, or a long part of it, in text: the check of issue 15 item 3 ("the key never
// appears in text that came from a server"). Reused by every test that greps output, files or
// IPC payloads for a key: `expect(keyLeaksIn(text, apiKey)).toEqual([])`.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { MIN_RUN, secretPartOf } from '../../src-main/api/redact';

/** The runs of the key's secret part (MIN_RUN characters each) that occur in `text`; [] when none does. */
export function keyLeaksIn(text: string, apiKey: string): string[] {
  const secret = secretPartOf(apiKey);
  if (secret.length < MIN_RUN) return text.includes(secret) ? [secret] : [];
  const found: string[] = [];
  for (let i = 0; i + MIN_RUN <= secret.length; i++) {
    const run = secret.slice(i, i + MIN_RUN);
    if (text.includes(run)) found.push(run);
  }
  return found;
}

/** Every file below `dir` (recursively) that holds a run of the key, with the runs found. */
export async function keyLeaksInTree(dir: string, apiKey: string): Promise<Array<{ file: string; runs: string[] }>> {
  const out: Array<{ file: string; runs: string[] }> = [];
  async function walk(d: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) {
        const runs = keyLeaksIn(await fs.readFile(p, 'latin1'), apiKey);
        if (runs.length > 0) out.push({ file: p, runs });
      }
    }
  }
  await walk(dir);
  return out;
}

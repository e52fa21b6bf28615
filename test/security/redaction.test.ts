// The key never appears in text that came from a server (issue 15 item 3). First the redactor
// itself; then servers that echo the Authorization header into every kind of answer (the
// reference service's `echo_auth` fault), read through both clients and through a real CLI sync.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDeliveryClient, type DeliveryClient } from '../../src-main/api/delivery-client';
import { isApiError } from '../../src-main/api/errors';
import { createAnswerRedactor, createRedactor, REDACTED, redactedRunLength, redactJson, secretPartOf } from '../../src-main/api/redact';
import { createRecruiterClient, type RecruiterClient } from '../../src-main/api/recruiter-client';
import { readHistory } from '../../src-main/sync/state/history';
import { mainCollection, runCli, servedSets, tempDir, useService } from '../engine/helpers';
import type { FaultMatch } from '../../src-service/index';
import { keyLeaksIn, keyLeaksInTree } from '../support/key-leaks';

const key = `dsk_live_${randomBytes(16).toString('hex')}`;
const secret = key.slice('dsk_live_'.length);
const secretRunsIn = (text: string) => keyLeaksIn(text, key);

describe('redactor', () => {
  const redact = createRedactor(key);

  it('finds the secret part behind a vendor prefix', () => {
    expect(secretPartOf(key)).toBe(secret);
    expect(secretPartOf('rk_live_not-a-real-key-0123456789')).toBe('not-a-real-key-0123456789');
    expect(secretPartOf('plainsecretwithoutanyprefix')).toBe('plainsecretwithoutanyprefix');
    // A "prefix" that leaves too little behind is no prefix.
    expect(secretPartOf('ab_cd')).toBe('ab_cd');
  });

  it('redacts the key, the secret and any run of 12 or more of its hex characters (48 bits); keeps shorter runs and the prefix GET /me shows', () => {
    expect(redactedRunLength(key)).toBe(12);
    expect(redact(`Authorization: Bearer ${key}`)).toBe(`Authorization: Bearer dsk_live_${REDACTED}`);
    expect(redact(`echo ${secret.slice(5, 17)} end`)).toBe(`echo ${REDACTED} end`);
    expect(redact(`x${secret.slice(3, 14)}y`)).toBe(`x${secret.slice(3, 14)}y`);
    expect(redact(key.slice(0, 12))).toBe(key.slice(0, 12));
    expect(redact('nothing to see')).toBe('nothing to see');
  });

  it('a sha256 that happens to share 8 to 11 hex characters with a hex secret is left intact (it would break the record)', () => {
    // The filler must not itself extend the shared run to 12 (the key is random per run: a secret
    // whose 12th character is "0" made a zero filler do exactly that).
    const holdsRunOf12 = (text: string) => [...Array(secret.length - 11).keys()].some((i) => text.includes(secret.slice(i, i + 12)));
    for (let n = 8; n < 12; n++) {
      const sha = [...'0123456789abcdef']
        .map((c) => `${c.repeat(20)}${secret.slice(0, n)}${c.repeat(44 - n)}`)
        .find((candidate) => !holdsRunOf12(candidate))!;
      expect(redact(sha)).toBe(sha);
    }
  });

  it('runs of 8 for base64-like secrets, 9 for alphanumeric ones', () => {
    const b64 = `sk_${'A+/'.repeat(4)}${randomBytes(24).toString('base64')}`;
    expect(redactedRunLength(b64)).toBe(8);
    const part = secretPartOf(b64).slice(10, 18);
    expect(createRedactor(b64)(`<${part}>`)).toBe(`<${REDACTED}>`);
    expect(redactedRunLength(`ak_${'aZ9'.repeat(10)}`)).toBe(9);
  });

  it('leaves no run of the secret in any splice of it, however the echo is cut and mixed', () => {
    for (let round = 0; round < 500; round++) {
      const pieces: string[] = [];
      for (let n = 0; n < 4; n++) {
        const a = Math.floor(Math.random() * secret.length);
        const b = a + Math.floor(Math.random() * (secret.length - a + 1));
        pieces.push(secret.slice(a, b), randomBytes(2).toString('hex').slice(0, Math.floor(Math.random() * 4)));
      }
      const text = pieces.join('');
      const out = redact(text);
      expect(secretRunsIn(out), `${text} -> ${out}`).toEqual([]);
    }
  });

  it('redacts every string of a parsed answer, object keys included, without touching the prototype', () => {
    const parsed = JSON.parse(`{"error": "bad key ${key}", "list": ["${secret}", 3, null], "${secret}": {"__proto__": "x ${secret}"}}`) as Record<string, unknown>;
    const out = redactJson(parsed, redact);
    expect(secretRunsIn(JSON.stringify(out))).toEqual([]);
    expect(out.error).toBe(`bad key dsk_live_${REDACTED}`);
    expect(Object.getPrototypeOf(out[REDACTED])).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out[REDACTED], '__proto__')?.value).toBe(`x ${REDACTED}`);
  });

  it('an answer is walked when its text may hide a run: a secret with a slash, written `\\/` in JSON', () => {
    const slashKey = 'sk_Ab3x/Y9Qr/7LmK/p8Zt/Wq2e/R5ty'; // every run of 8 holds a slash
    const slashSecret = secretPartOf(slashKey);
    const text = JSON.stringify({ note: `echo ${slashSecret}` }).replaceAll('/', '\\/');
    expect(text).not.toContain(slashSecret);
    const out = createAnswerRedactor(slashKey, createRedactor(slashKey))(text, JSON.parse(text) as { note: string });
    expect(out.note).toBe(`echo ${REDACTED}`);
  });

  it('a key shorter than a run is redacted whole', () => {
    expect(createRedactor('abc123')('x abc123 y')).toBe(`x ${REDACTED} y`);
  });
});

// --- against a server that echoes the key everywhere ---

const env = useService({ sets: 3, fileSize: 8 * 1024, slots: 2, seed: 151 });

/** What a caller can see of an outcome: the record it got, or the error's message and field errors. */
async function visible(p: Promise<unknown>): Promise<string> {
  try {
    return JSON.stringify(await p);
  } catch (e) {
    if (!isApiError(e)) throw e;
    return `${e.kind}: ${e.message} ${JSON.stringify(e.fieldErrors ?? {})}`;
  }
}

interface EchoCase {
  what: string;
  match: FaultMatch;
  call: () => Promise<unknown>;
}

/**
 * Runs each call once under an echo_auth fault of each status; fails if any outcome shows a run
 * of the key, or if fewer than all but one status per call showed the echo (redacted) at all.
 */
async function expectNoLeakUnderEcho(cases: EchoCase[], statuses: number[], apiKey: string): Promise<void> {
  const { svc } = env;
  let redactedSeen = 0;
  for (const { what, match, call } of cases) {
    for (const status of statuses) {
      await svc.admin.addFault(match, { type: 'echo_auth', status }, 1);
      const seen = await visible(call());
      expect(keyLeaksIn(seen, apiKey), `${what} ${status}: ${seen}`).toEqual([]);
      if (seen.includes(REDACTED)) redactedSeen++;
    }
  }
  // Every error answer carried the echo into its message, redacted (a 200 may have dropped it with an unknown field).
  expect(redactedSeen).toBeGreaterThanOrEqual(cases.length * (statuses.length - 1));
}

describe('a server that echoes the Authorization header', () => {
  it('really does echo it (body, header, reason phrase), so the checks below are not vacuous', async () => {
    const { svc } = env;
    const { apiKey } = mainCollection(svc);
    await svc.admin.addFault({ path: '^/me$' }, { type: 'echo_auth', status: 400 }, 1);
    const res = await fetch(`${svc.deliveryBaseUrl}/me`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(await res.text()).toContain(apiKey);
    expect(res.headers.get('x-echo-authorization')).toContain(apiKey);
    expect(res.statusText).toContain(apiKey);
  });

  it('delivery client: no answer of any kind and status carries the key past the client', async () => {
    const { svc, collectionId } = env;
    const { apiKey } = mainCollection(svc);
    const c: DeliveryClient = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey, bodyTimeoutMs: 5000 });
    try {
      const set = (await c.listSets(collectionId, { perPage: 1 })).sets[0]!;
      const consentUrl = set.participants.find((p) => p.consent)!.consent!.url;
      const file = set.files[0]!;
      const headsOf = async () => {
        const heads: unknown[] = [];
        await c.streamFile(file.url, {}, (head) => {
          heads.push(head);
          return { onData: () => true };
        });
        return heads;
      };
      const cases: EchoCase[] = [
        { what: 'me', match: { path: '^/me$' }, call: () => c.me() },
        { what: 'collections', match: { path: '^/collections$' }, call: () => c.listCollections() },
        { what: 'collection', match: { path: `^/collections/${collectionId}$` }, call: () => c.getCollection(collectionId) },
        { what: 'sets page', match: { path: '/sets$' }, call: () => c.listSets(collectionId, {}) },
        { what: 'set', match: { path: `/sets/${set.id}$` }, call: () => c.getSet(collectionId, set.id) },
        { what: 'consent', match: { path: '^/consents/' }, call: () => c.getConsent(consentUrl) },
        // The file's response headers as the transfer sees them (a 200 echoes into a header and the reason phrase).
        { what: 'file', match: { path: '^/files/' }, call: headsOf },
      ];
      await expectNoLeakUnderEcho(cases, [200, 400, 401, 403, 404, 422, 429, 500, 503], apiKey);
    } finally {
      await c.close();
    }
  });

  it('an answer that spells the key in JSON escapes is redacted as one that writes it out', async () => {
    // The client judges an answer's text once and walks its strings only when the text may hide a
    // run of the key: written as \\u escapes it must still be found, in a value and in a field name.
    const { svc, collectionId } = env;
    const { apiKey } = mainCollection(svc);
    const c: DeliveryClient = createDeliveryClient({ baseUrl: svc.deliveryBaseUrl, apiKey });
    try {
      const set = (await c.listSets(collectionId, { perPage: 1 })).sets[0]!;
      const ref = set.participants.find((p) => p.consent)!.consent!;
      const escaped = (text: string) => [...text].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
      const real = JSON.parse(await (await fetch(ref.url, { headers: { authorization: `Bearer ${apiKey}` } })).text()) as { consent: Record<string, unknown> };
      const body = JSON.stringify({ consent: { ...real.consent, release_text: 'KEY', extra: { FIELD: 1 } } })
        .replace('KEY', `echo \\"${escaped(apiKey)}\\"`)
        .replace('FIELD', escaped(secretPartOf(apiKey).slice(4, 20)));
      expect(body).not.toContain(secretPartOf(apiKey).slice(0, 12));
      await svc.admin.addFault({ path: '^/consents/' }, { type: 'body', status: 200, contentType: 'application/json', body }, 1);
      const seen = JSON.stringify(await c.getConsent(ref.url));
      expect(keyLeaksIn(seen, apiKey)).toEqual([]);
      expect(seen).toContain(`echo \\"dsk_live_${REDACTED}\\"`);
    } finally {
      await c.close();
    }
  });

  it('recruiter client: no answer of any kind and status carries the key past the client', async () => {
    const { svc } = env;
    const apiKey = svc.organizations.find((o) => o.name === 'Acme Field Research')!.apiKey;
    const c: RecruiterClient = createRecruiterClient({ baseUrl: svc.recruiterBaseUrl, apiKey });
    try {
      const job = (await c.listJobs()).jobs[0]!;
      const app = (await c.listApplications(job.id))[0]!;
      const newJob = { title: 't', description: 'd', job_type: 'survey', location_type: 'remote', rate: '10', rate_type: 'daily', currency: 'EUR', number_of_positions: 1 };
      const at = (path: string, method?: string): FaultMatch => ({ api: 'recruiter', path, ...(method ? { method } : {}) });
      const cases: EchoCase[] = [
        { what: 'me', match: at('^/me$'), call: () => c.me() },
        { what: 'jobs', match: at('^/jobs$', 'GET'), call: () => c.listJobs() },
        { what: 'create job', match: at('^/jobs$', 'POST'), call: () => c.createJob(newJob) },
        { what: 'job', match: at(`^/jobs/${job.id}$`, 'GET'), call: () => c.getJob(job.id) },
        { what: 'applications', match: at(`^/jobs/${job.id}/applications$`), call: () => c.listApplications(job.id) },
        { what: 'application', match: at(`^/jobs/${job.id}/applications/${app.id}$`), call: () => c.getApplication(job.id, app.id) },
        { what: 'data champs', match: at('^/data-champs$'), call: () => c.searchDataChamps() },
        { what: 'data champ', match: at('^/data-champs/\\d+$'), call: () => c.getDataChamp(app.data_champ_id!) },
        { what: 'matches', match: at('/matches$'), call: () => c.getMatches(job.id) },
      ];
      await expectNoLeakUnderEcho(cases, [200, 400, 401, 403, 404, 409, 422, 429, 500], apiKey);
    } finally {
      await c.close();
    }
  });

  it('a real CLI sync, collections and login: the key is in no output, no file under DEST and no consent record', async () => {
    const { svc, collectionId } = env;
    const { apiKey } = mainCollection(svc);
    const work = await tempDir('dsync-echo-');
    const dest = path.join(work, 'ds');
    const cliEnv = { DATASET_SYNC_API_KEY: apiKey, DATASET_SYNC_STALL_TIMEOUT_MS: '5000' };
    const sync = (...extra: string[]) =>
      runCli(['sync', '--base-url', svc.deliveryBaseUrl, '--collection', String(collectionId), '--dest', dest, ...extra], { env: cliEnv });
    const outputs: string[] = [];
    try {
      // 1. Every answer echoes: one file fails with a 500 echo, one is 404, the rest arrive with echo headers;
      //    the collection, the pages and the consents carry an `echo` field.
      const files = (await servedSets(svc, collectionId)).flatMap((s) => s.files);
      await svc.admin.addFault({ path: `^/files/${files[0]!.id}$` }, { type: 'echo_auth', status: 500 });
      await svc.admin.addFault({ path: `^/files/${files[1]!.id}$` }, { type: 'echo_auth', status: 404 });
      for (const p of ['^/files/', `^/collections/${collectionId}$`, '/sets$', '^/consents/']) await svc.admin.addFault({ path: p }, { type: 'echo_auth', status: 200 });
      const first = await sync('--json');
      expect(first.code).toBe(1);
      expect(first.stdout).toContain(REDACTED);
      outputs.push(first.stdout, first.stderr);
      await svc.admin.clearFaults();

      // 2. The walk fails on echoing error pages: with --json, and in human form.
      await svc.admin.addFault({ path: '/sets$' }, { type: 'echo_auth', status: 503 });
      const fatal = await sync('--json');
      expect(fatal.code).toBe(4);
      await svc.admin.clearFaults();
      await svc.admin.addFault({ path: `^/collections/${collectionId}$` }, { type: 'echo_auth', status: 401 });
      const rejected = await sync();
      expect(rejected.code).toBe(3);
      expect(rejected.stderr).toContain(REDACTED);
      await svc.admin.clearFaults();
      await svc.admin.addFault({ path: '^/consents/' }, { type: 'echo_auth', status: 400 });
      const consentsFail = await sync('--json', '--full');
      outputs.push(fatal.stdout, fatal.stderr, rejected.stdout, rejected.stderr, consentsFail.stdout, consentsFail.stderr);
      await svc.admin.clearFaults();

      // 3. collections and login.
      await svc.admin.addFault({ path: '^/collections$' }, { type: 'echo_auth', status: 500 });
      const collections = await runCli(['collections', '--base-url', svc.deliveryBaseUrl], { env: cliEnv });
      expect(collections.code).toBe(4);
      await svc.admin.clearFaults();
      await svc.admin.addFault({ path: '^/collections$' }, { type: 'echo_auth', status: 200 });
      const listed = await runCli(['collections', '--base-url', svc.deliveryBaseUrl, '--json'], { env: cliEnv });
      expect(listed.code).toBe(0);
      await svc.admin.addFault({ path: '^/me$' }, { type: 'echo_auth', status: 401 });
      const login = await runCli(['login', '--base-url', svc.deliveryBaseUrl], { env: { DATASET_SYNC_API_KEY: undefined }, input: `${apiKey}\n` });
      expect(login.code).toBe(3);
      expect(login.stderr).toContain(REDACTED);
      outputs.push(collections.stdout, collections.stderr, listed.stdout, listed.stderr, login.stdout, login.stderr);

      expect(keyLeaksIn(outputs.join('\n'), apiKey)).toEqual([]);
      expect(JSON.stringify(await readHistory(dest))).toContain(REDACTED);
      expect(await keyLeaksInTree(dest, apiKey)).toEqual([]);
      expect((await fs.readdir(`${dest}.consents`)).length).toBeGreaterThan(0);
      expect(await keyLeaksInTree(`${dest}.consents`, apiKey)).toEqual([]);
    } finally {
      await fs.rm(work, { recursive: true, force: true });
    }
  }, 120_000);
});

// The reference service's admin interface against a hostile page (issue 15 item 2). In real
// Chromium, a page served from another loopback origin sends every "simple" cross-origin request
// a browser allows without a preflight (no-cors fetch with text/plain, form POSTs of each simple
// encoding, <img>/<script>/<iframe> GETs) to the admin endpoints that add faults, move and add
// sets, revoke keys and reset stats. Afterwards the real admin client (with this run's token)
// finds no fault added, no set moved or added, and the key still working.
import { createServer, type Server } from 'node:http';
import { promises as fs } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mainCollection, servedSets, startService, type Service } from '../engine/helpers';
import { launchChromium } from '../support/chromium';

let svc: Service;
let root: string;
let attacker: Server;
let attackerPort: number;

interface Attack {
  /** The admin base URL the page aims at (both loopback spellings are tried). */
  admin: string;
  setId: number;
  collectionId: number;
  apiKey: string;
}

/** The hostile page: fires every simple request, records which ones got an (opaque) answer. */
function attackPage({ admin, setId, collectionId, apiKey }: Attack): string {
  const posts = [
    ['/faults', { match: { path: '^/files/' }, fault: { type: 'status', status: 500 } }],
    [`/sets/${setId}/status`, { status: 'rejected' }],
    [`/collections/${collectionId}/sets`, { count: 3 }],
    ['/keys/revoke', { api_key: apiKey }],
    ['/stats/reset', {}],
  ];
  const script = `
    const admin = ${JSON.stringify(admin)};
    const posts = ${JSON.stringify(posts)};
    const sent = [];
    const waits = [];
    for (const [path, body] of posts) {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']) {
        waits.push(fetch(admin + path, { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': type }, body: JSON.stringify(body) })
          .then(() => sent.push('fetch ' + type + ' ' + path), (e) => sent.push('fetch failed ' + path + ' ' + e)));
      }
      // A form POST in each simple encoding, into its own frame; the JSON rides in a field name.
      for (const enctype of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']) {
        const frame = document.createElement('iframe');
        frame.name = 'f' + Math.random().toString(36).slice(2);
        document.body.appendChild(frame);
        const form = document.createElement('form');
        form.method = 'POST';
        form.action = admin + path;
        form.enctype = enctype;
        form.target = frame.name;
        const input = document.createElement('input');
        input.name = JSON.stringify(body).slice(0, -1) + ', "x": "';
        input.value = '"}';
        form.appendChild(input);
        document.body.appendChild(form);
        waits.push(new Promise((resolve) => { frame.onload = () => { sent.push('form ' + enctype + ' ' + path); resolve(); }; setTimeout(resolve, 5000); }));
        form.submit();
      }
    }
    // GETs that need no CORS: images, a script, a frame; and a CORS read of the state.
    for (const path of ['/state', '/faults', '/stats']) {
      const img = new Image();
      waits.push(new Promise((resolve) => { img.onload = img.onerror = () => { sent.push('img ' + path); resolve(); }; }));
      img.src = admin + path;
      const s = document.createElement('script');
      waits.push(new Promise((resolve) => { s.onload = s.onerror = () => { sent.push('script ' + path); resolve(); }; }));
      s.src = admin + path;
      document.body.appendChild(s);
    }
    let read = null;
    waits.push(fetch(admin + '/state').then((r) => r.text()).then((t) => { read = t; }, () => {}));
    Promise.all(waits).then(() => { window.attackDone = { sent, read }; });
  `;
  return `<!doctype html><title>attack</title><body><script>${script}</script></body>`;
}

beforeAll(async () => {
  ({ svc, root } = await startService({ sets: 3, fileSize: 4 * 1024, slots: 2, seed: 191 }));
  attacker = createServer((req, res) => {
    const attack = JSON.parse(decodeURIComponent(new URL(req.url ?? '/', 'http://x').searchParams.get('a') ?? '{}')) as Attack;
    res.writeHead(200, { 'Content-Type': 'text/html' }).end(attackPage(attack));
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', () => resolve()));
  const address = attacker.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  attackerPort = address.port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()));
  await svc?.close();
  await fs.rm(root, { recursive: true, force: true });
});

it('a page from another loopback origin adds no fault, moves no set and revokes no key through the admin interface', { timeout: 90_000 }, async () => {
  const { apiKey, collectionId } = mainCollection(svc);
  const setId = (await servedSets(svc, collectionId))[0]!.id;
  const before = await svc.admin.state();
  const adminBase = svc.admin.baseUrl;
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    for (const admin of [adminBase, adminBase.replace('127.0.0.1', 'localhost')]) {
      const attack: Attack = { admin, setId, collectionId, apiKey };
      await page.goto(`http://127.0.0.1:${attackerPort}/?a=${encodeURIComponent(JSON.stringify(attack))}`);
      await page.waitForFunction(() => 'attackDone' in window, undefined, { timeout: 60_000 });
      const done = (await page.evaluate(() => (window as unknown as { attackDone: { sent: string[]; read: string | null } }).attackDone));
      // Not vacuous: the browser did send the requests and got answers (opaque to the page).
      expect(done.sent.filter((s) => s.startsWith('fetch text/plain')), admin).toHaveLength(5);
      expect(done.sent.filter((s) => s.startsWith('form ')).length, admin).toBeGreaterThan(0);
      expect(done.sent.filter((s) => s.startsWith('img ')), admin).toHaveLength(3);
      expect(done.read, admin).toBeNull();
    }
  } finally {
    await browser.close();
  }

  // The real admin client, with the token, sees nothing changed.
  expect(await svc.admin.listFaults()).toEqual([]);
  const after = await svc.admin.state();
  expect(after.collections.map((c) => [c.id, c.accepted_set_ids])).toEqual(before.collections.map((c) => [c.id, c.accepted_set_ids]));
  expect(after).toEqual(before);
  const me = await fetch(`${svc.deliveryBaseUrl}/me`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(me.status).toBe(200);
});

// The admin interface (not part of the API): loopback only, per-run token (see guard.ts), JSON
// in and out. Tests and benchmarks use it to change data, inject faults and read counters.

import type { IncomingMessage } from 'node:http';
import { readJsonBody } from '../http/body';
import { errorPlan, jsonPlan, type ResponsePlan } from '../http/plan';
import { parseFaultRequest, type FaultRegistry } from '../faults';
import { SET_STATUSES, type SetStatus } from '../model';
import { setJson } from '../serialize';
import type { Stats } from '../stats';
import { refuseAdmin } from './guard';
import { parseMediaFaultRequest, type MediaFaults } from './media-faults';
import { addAcceptedSets, editSetFile, moveSet, stateJson, type MutationContext } from './mutations';

export interface AdminContext extends MutationContext {
  faults: FaultRegistry;
  mediaFaults: MediaFaults;
  stats: Stats;
  apiBase: string;
  access: { token: string; hosts: ReadonlySet<string> };
}

export async function handleAdmin(req: IncomingMessage, path: string, ctx: AdminContext): Promise<ResponsePlan> {
  const refusal = refuseAdmin(req, ctx.access);
  if (refusal) return refusal;
  const method = req.method ?? 'GET';
  const route = `${method} ${path.replace(/\/+$/, '') || '/'}`;
  const { store } = ctx;

  let m: RegExpExecArray | null;
  if ((m = /^POST \/collections\/(\d+)\/sets$/.exec(route))) {
    const collection = store.collections.get(Number(m[1]));
    if (!collection) return errorPlan(404, `collection ${m[1]} not found`);
    const body = await objectBody(req);
    if (typeof body === 'string') return errorPlan(400, body);
    const count = body.count ?? 1;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 10_000) return errorPlan(400, 'count must be an integer from 1 to 10000');
    if (body.is_gold !== undefined && typeof body.is_gold !== 'boolean') return errorPlan(400, 'is_gold must be a boolean');
    if (body.consent_null !== undefined && typeof body.consent_null !== 'boolean') return errorPlan(400, 'consent_null must be a boolean');
    const sets = await addAcceptedSets(ctx, collection, { count, isGold: body.is_gold === true, consentNull: body.consent_null === true });
    return jsonPlan(200, { sets: sets.map((s) => setJson(s, store, ctx.apiBase)) });
  }
  if ((m = /^POST \/sets\/(\d+)\/edit$/.exec(route))) {
    const set = store.set(Number(m[1]));
    if (!set) return errorPlan(404, `set ${m[1]} not found`);
    const body = await objectBody(req);
    if (typeof body === 'string') return errorPlan(400, body);
    const slotIndex = body.slot_index ?? 1;
    const file = set.files.find((f) => f.slotIndex === slotIndex);
    if (!file) return errorPlan(400, `set ${set.id} has no slot_index ${String(slotIndex)}`);
    if (body.filename !== undefined && (typeof body.filename !== 'string' || body.filename === '')) return errorPlan(400, 'filename must be a non-empty string');
    const size = body.size_bytes;
    if (size !== undefined && (typeof size !== 'number' || !Number.isInteger(size) || size < 0 || size > 2 ** 32)) return errorPlan(400, 'size_bytes must be a whole number of bytes');
    await editSetFile(ctx, set, file, { filename: body.filename as string | undefined, size: size as number | undefined });
    return jsonPlan(200, { set: setJson(set, store, ctx.apiBase) });
  }
  if ((m = /^POST \/sets\/(\d+)\/status$/.exec(route))) {
    const set = store.set(Number(m[1]));
    if (!set) return errorPlan(404, `set ${m[1]} not found`);
    const body = await objectBody(req);
    if (typeof body === 'string') return errorPlan(400, body);
    if (typeof body.status !== 'string' || !(SET_STATUSES as readonly string[]).includes(body.status)) return errorPlan(400, `status must be one of ${SET_STATUSES.join(', ')}`);
    moveSet(ctx, set, body.status as SetStatus);
    return jsonPlan(200, { set: setJson(set, store, ctx.apiBase) });
  }
  if (route === 'POST /keys/revoke') {
    const body = await objectBody(req);
    if (typeof body === 'string') return errorPlan(400, body);
    if (typeof body.api_key !== 'string') return errorPlan(400, 'api_key must be a string');
    return store.revokeKey(body.api_key) ? jsonPlan(200, { ok: true }) : errorPlan(404, 'no such API key');
  }
  if (route === 'POST /faults') {
    const body = await readJsonBody(req);
    if (!body.ok) return errorPlan(400, body.message);
    const parsed = parseFaultRequest(body.value);
    if (typeof parsed === 'string') return errorPlan(400, parsed);
    const entry = ctx.faults.add(parsed.match, parsed.fault, parsed.times);
    return jsonPlan(200, { id: entry.id });
  }
  if (route === 'GET /faults') return jsonPlan(200, { faults: ctx.faults.list() });
  // Clearing the faults clears the media faults too: "no faults" means a clean service.
  if (route === 'DELETE /faults') {
    ctx.faults.clear();
    ctx.mediaFaults.clear(store, ctx.now());
    return jsonPlan(200, { ok: true });
  }
  if (route === 'POST /media-faults') {
    const body = await readJsonBody(req);
    if (!body.ok) return errorPlan(400, body.message);
    const parsed = parseMediaFaultRequest(body.value);
    if (typeof parsed === 'string') return errorPlan(400, parsed);
    if (!ctx.clips) return errorPlan(409, 'media faults need the demo videos (src-service/media), which this service did not find');
    const entry = ctx.mediaFaults.add(store, ctx.clips, parsed, ctx.now());
    return typeof entry === 'string' ? errorPlan(409, entry) : jsonPlan(200, entry);
  }
  if (route === 'GET /media-faults') return jsonPlan(200, { media_faults: ctx.mediaFaults.list() });
  if (route === 'DELETE /media-faults') {
    ctx.mediaFaults.clear(store, ctx.now());
    return jsonPlan(200, { ok: true });
  }
  if ((m = /^DELETE \/media-faults\/(\d+)$/.exec(route))) {
    return ctx.mediaFaults.remove(store, Number(m[1]), ctx.now()) ? jsonPlan(200, { ok: true }) : errorPlan(404, `media fault ${m[1]} not found`);
  }
  if ((m = /^DELETE \/faults\/(\d+)$/.exec(route))) {
    return ctx.faults.remove(Number(m[1])) ? jsonPlan(200, { ok: true }) : errorPlan(404, `fault ${m[1]} not found`);
  }
  if (route === 'GET /stats') return jsonPlan(200, ctx.stats.read());
  if (route === 'POST /stats/reset') {
    ctx.stats.reset();
    return jsonPlan(200, { ok: true });
  }
  if (route === 'GET /state') return jsonPlan(200, stateJson(store));
  return errorPlan(404, `no such admin endpoint: ${route}`);
}

async function objectBody(req: IncomingMessage): Promise<Record<string, unknown> | string> {
  const body = await readJsonBody(req);
  if (!body.ok) return body.message;
  if (body.value === null || typeof body.value !== 'object' || Array.isArray(body.value)) return 'request body must be a JSON object';
  return body.value as Record<string, unknown>;
}

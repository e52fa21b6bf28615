// Fault switches, modelled on Google's storage-testbench instructions: a test registers
// "the next N requests matching X misbehave like Y", and the service obeys on the wire.
// Faults are checked in the order they were added; the first that matches a request is
// applied (one fault per request) and counts a hit; after `times` hits it retires and
// disappears from the list.

export type Fault =
  | { type: 'status'; status: number }
  | { type: 'rate_limit'; retryAfter: number }
  | { type: 'latency'; ms: number }
  | { type: 'reset'; afterBytes: number }
  | { type: 'stall'; afterBytes: number; ms?: number }
  | { type: 'truncate'; afterBytes: number }
  | { type: 'flip'; atByte: number }
  | { type: 'ignore_range' }
  /** Sets feed: `has_more` stays true on every page, and a page past the end answers the last page again. */
  | { type: 'endless_feed' }
  /** Answers with this body instead of the API (contentRange: a Content-Range header, for a lying 206). */
  | { type: 'body'; status?: number; contentType?: string; contentRange?: string; body: string }
  /** Headers at once, then the body `bytes` bytes every `everyMs` ms until complete. */
  | { type: 'trickle'; bytes: number; everyMs: number }
  /** Echoes the request's Authorization header into the body, a header and the reason phrase (default status 500). */
  | { type: 'echo_auth'; status?: number };

/** Faults that change how a body is transmitted (as opposed to replacing the answer). */
export type StreamFault = Extract<Fault, { type: 'reset' | 'stall' | 'truncate' | 'flip' | 'trickle' }>;

export type ApiName = 'delivery' | 'recruiter';

export interface FaultMatch {
  /** Regex source tested against the request path below the API base, e.g. "^/files/" (query string excluded). */
  path?: string;
  method?: string;
  api?: ApiName;
}

export interface FaultEntry {
  id: number;
  match: FaultMatch;
  fault: Fault;
  /** Matching requests affected before the fault retires; null = until cleared. */
  times: number | null;
  hits: number;
}

interface ActiveFault extends FaultEntry {
  pathPattern: RegExp | undefined;
}

export class FaultRegistry {
  private readonly faults: ActiveFault[] = [];
  private nextId = 1;

  add(match: FaultMatch, fault: Fault, times: number | null): FaultEntry {
    const entry: ActiveFault = {
      id: this.nextId++,
      match,
      fault,
      times,
      hits: 0,
      pathPattern: match.path === undefined ? undefined : new RegExp(match.path),
    };
    this.faults.push(entry);
    return publicEntry(entry);
  }

  list(): FaultEntry[] {
    return this.faults.map(publicEntry);
  }

  clear(): void {
    this.faults.length = 0;
  }

  remove(id: number): boolean {
    const index = this.faults.findIndex((f) => f.id === id);
    if (index < 0) return false;
    this.faults.splice(index, 1);
    return true;
  }

  /** The fault for this request, if any; counts the hit and retires exhausted faults. */
  take(api: ApiName, method: string, path: string): Fault | undefined {
    const index = this.faults.findIndex(
      (f) =>
        (f.match.api === undefined || f.match.api === api) &&
        (f.match.method === undefined || f.match.method.toUpperCase() === method.toUpperCase()) &&
        (f.pathPattern === undefined || f.pathPattern.test(path)),
    );
    const entry = this.faults[index];
    if (!entry) return undefined;
    entry.hits++;
    if (entry.times !== null && entry.hits >= entry.times) this.faults.splice(index, 1);
    return entry.fault;
  }
}

function publicEntry(f: ActiveFault): FaultEntry {
  return { id: f.id, match: { ...f.match }, fault: { ...f.fault }, times: f.times, hits: f.hits };
}

// --- validation of admin input ---

export function parseFaultRequest(body: unknown): { match: FaultMatch; fault: Fault; times: number | null } | string {
  if (!isObject(body)) return 'body must be a JSON object {match, fault, times?}';
  const match = body.match === undefined ? {} : body.match;
  if (!isObject(match)) return 'match must be an object';
  const out: FaultMatch = {};
  if (match.path !== undefined) {
    if (typeof match.path !== 'string') return 'match.path must be a regular expression source string';
    try {
      new RegExp(match.path);
    } catch {
      return `match.path is not a valid regular expression: ${match.path}`;
    }
    out.path = match.path;
  }
  if (match.method !== undefined) {
    if (typeof match.method !== 'string') return 'match.method must be a string';
    out.method = match.method.toUpperCase();
  }
  if (match.api !== undefined) {
    if (match.api !== 'delivery' && match.api !== 'recruiter') return 'match.api must be "delivery" or "recruiter"';
    out.api = match.api;
  }
  let times: number | null = null;
  if (body.times !== undefined && body.times !== null) {
    if (!isCount(body.times) || body.times < 1) return 'times must be an integer of 1 or more';
    times = body.times;
  }
  const fault = parseFault(body.fault);
  return typeof fault === 'string' ? fault : { match: out, fault, times };
}

function parseFault(f: unknown): Fault | string {
  if (!isObject(f) || typeof f.type !== 'string') return 'fault must be an object with a type';
  switch (f.type) {
    case 'status':
      return isCount(f.status) && f.status >= 100 && f.status <= 599 ? { type: 'status', status: f.status } : 'status fault needs status 100..599';
    case 'rate_limit':
      return isCount(f.retryAfter) ? { type: 'rate_limit', retryAfter: f.retryAfter } : 'rate_limit fault needs retryAfter (whole seconds, 0 or more)';
    case 'latency':
      return isCount(f.ms) ? { type: 'latency', ms: f.ms } : 'latency fault needs ms (0 or more)';
    case 'reset':
    case 'truncate':
      return isCount(f.afterBytes) ? { type: f.type, afterBytes: f.afterBytes } : `${f.type} fault needs afterBytes (0 or more)`;
    case 'stall':
      if (!isCount(f.afterBytes)) return 'stall fault needs afterBytes (0 or more)';
      if (f.ms !== undefined && !isCount(f.ms)) return 'stall fault ms must be 0 or more when given';
      return f.ms === undefined ? { type: 'stall', afterBytes: f.afterBytes } : { type: 'stall', afterBytes: f.afterBytes, ms: f.ms };
    case 'flip':
      return isCount(f.atByte) ? { type: 'flip', atByte: f.atByte } : 'flip fault needs atByte (0 or more)';
    case 'ignore_range':
      return { type: 'ignore_range' };
    case 'endless_feed':
      return { type: 'endless_feed' };
    case 'body': {
      if (typeof f.body !== 'string') return 'body fault needs body (a string)';
      if (f.status !== undefined && !(isCount(f.status) && f.status >= 100 && f.status <= 599)) return 'body fault status must be 100..599';
      if (f.contentType !== undefined && typeof f.contentType !== 'string') return 'body fault contentType must be a string';
      if (f.contentRange !== undefined && typeof f.contentRange !== 'string') return 'body fault contentRange must be a string';
      const out: Fault = { type: 'body', body: f.body };
      if (f.status !== undefined) out.status = f.status as number;
      if (f.contentType !== undefined) out.contentType = f.contentType as string;
      if (f.contentRange !== undefined) out.contentRange = f.contentRange as string;
      return out;
    }
    case 'trickle':
      if (!isCount(f.bytes) || f.bytes < 1) return 'trickle fault needs bytes (1 or more per step)';
      if (!isCount(f.everyMs)) return 'trickle fault needs everyMs (0 or more)';
      return { type: 'trickle', bytes: f.bytes, everyMs: f.everyMs };
    case 'echo_auth':
      if (f.status === undefined) return { type: 'echo_auth' };
      // 200 = the real answer plus the echo; an error status replaces the answer.
      return f.status === 200 || (isCount(f.status) && f.status >= 400 && f.status <= 599)
        ? { type: 'echo_auth', status: f.status }
        : 'echo_auth fault status must be 200 or 400..599';
    default:
      return `unknown fault type: ${f.type}`;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

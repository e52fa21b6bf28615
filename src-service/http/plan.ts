// A handler describes its answer as a plan; the sender puts it on the wire, possibly through
// a stream fault. Keeping the two apart lets every fault work on every endpoint.

export type BodySource =
  /** `offset`: where `data` starts in the file it was cut from (a range of an in-memory body), for the flip fault. */
  | { kind: 'buffer'; data: Buffer; offset?: number }
  /** Inclusive byte range [start, end] of a file on disk; end < start means an empty body. */
  | { kind: 'file'; path: string; start: number; end: number };

export interface ResponsePlan {
  status: number;
  /** HTTP reason phrase; Node's default for the status when absent. */
  reason?: string;
  headers: Record<string, string | number>;
  body: BodySource;
}

const JSON_TYPE = 'application/json; charset=utf-8';

export function jsonPlan(status: number, value: unknown, extraHeaders: Record<string, string | number> = {}): ResponsePlan {
  return {
    status,
    headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', ...extraHeaders },
    body: { kind: 'buffer', data: Buffer.from(JSON.stringify(value)) },
  };
}

/** Every error body is exactly {"error": "<message>"}. */
export function errorPlan(status: number, message: string, extraHeaders: Record<string, string | number> = {}): ResponsePlan {
  return jsonPlan(status, { error: message }, extraHeaders);
}

export function bodyLength(body: BodySource): number {
  return body.kind === 'buffer' ? body.data.length : Math.max(0, body.end - body.start + 1);
}

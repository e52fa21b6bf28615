// Raw HTTP for the contract tests: they check the wire, independent of the typed client.
export interface RawAnswer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- contract tests poke at arbitrary JSON
  body: any;
}

export async function call(
  baseUrl: string,
  method: string,
  path: string,
  opts: { key?: string | null; body?: unknown; rawBody?: string; authorization?: string } = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.authorization !== undefined) headers.authorization = opts.authorization;
  else if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

/** Binds a base URL and key so tests read as `api('GET', '/jobs')`. */
export function client(baseUrl: string, key: string) {
  return (method: string, path: string, body?: unknown) => call(baseUrl, method, path, { key, body });
}

export const VALID_JOB = {
  title: 'Retail shelf photos',
  description: 'Photograph the cereal aisle in three supermarkets.',
  job_type: 'photo_survey',
  location_type: 'on_site',
  rate: '120.50',
  rate_type: 'daily',
  currency: 'EUR',
  number_of_positions: 3,
  required_skills: ['photography', 'retail'],
};

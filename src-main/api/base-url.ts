// Base URLs must be https, except loopback hosts, which may use http (docs/contracts.md §2). The API
// key travels in every request, so a plain-http remote host would leak it.

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export class BaseUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BaseUrlError';
  }
}

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase());
}

/** Parses and checks a base URL; returns it normalised without a trailing slash. */
export function validateBaseUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new BaseUrlError(`"${input}" is not a valid URL (expected e.g. https://example.com/api/v1/partner)`);
  }
  if (url.username || url.password) {
    throw new BaseUrlError('The base URL must not contain a user name or password; the API key is stored separately.');
  }
  if (url.search || url.hash) {
    throw new BaseUrlError('The base URL must not contain a query string or fragment.');
  }
  if (url.protocol === 'http:') {
    if (!isLoopbackHost(url.hostname)) {
      throw new BaseUrlError(`Refusing plain http:// for ${url.hostname}: use https:// (http is allowed only for 127.0.0.1, localhost and [::1]).`);
    }
  } else if (url.protocol !== 'https:') {
    throw new BaseUrlError(`Unsupported scheme ${url.protocol} in the base URL: use https://.`);
  }
  return url.toString().replace(/\/+$/, '');
}

// Recognises delivery base URLs that are almost right, before a round trip to the service:
// a bare host (or any path) without /api/v1/partner, and the recruiter API's address.
const PARTNER_PATH = '/api/v1/partner';
const RECRUITER_PATH = '/api/v1/recruiter';

export interface BaseUrlHint {
  message: string;
  /** The address the user probably meant. */
  suggestion: string;
}

export function baseUrlHint(input: string): BaseUrlHint | null {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return null; // not a URL yet: the form's own check and main's base_url error say so
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const pathname = url.pathname.replace(/\/+$/, '');
  if (pathname.endsWith(PARTNER_PATH)) return null;
  if (pathname.endsWith(RECRUITER_PATH)) {
    const suggestion = `${url.origin}${pathname.slice(0, -RECRUITER_PATH.length)}${PARTNER_PATH}`;
    return { message: `This is the recruiter API's address. The delivery service is at ${suggestion}.`, suggestion };
  }
  // A path cut short ("/api", "/api/v1") is completed, not repeated.
  const partial = ['/api/v1', '/api'].find((p) => pathname.endsWith(p));
  const base = partial ? pathname.slice(0, -partial.length) : pathname;
  const suggestion = `${url.origin}${base}${PARTNER_PATH}`;
  return { message: `Delivery addresses end in ${PARTNER_PATH}. Did you mean ${suggestion}?`, suggestion };
}

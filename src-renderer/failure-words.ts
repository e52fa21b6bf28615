// A file's failure in plain words. The engine reports a failed or retried file with a stable
// code (FailureCode) and a technical reason; the words are chosen by the code (pinned by
// test/ui/failure-words.test.ts against the codes the real engine gives under the reference
// service's faults), the reason is the detail, shortened and with anything key-like hidden.
import type { FailureCode } from '../src-shared/sync-events';

export interface PlainFailure {
  /** What happened, in a few words (the row shows it). */
  summary: string;
  /** What happened and what the user can do, in sentences. */
  explanation: string;
  /** The engine's reason, shortened: no long request paths, no key. */
  detail: string;
}

type Words = { summary: string; explanation: string };

const TRY_AGAIN = 'Press Sync again later: the file is fetched again, and bytes already received are kept and resumed.';
const TELL_PROVIDER = 'If it keeps happening, copy these details and send them to the data provider.';

/** The words for each failure code (FailureCode, src-shared/sync-events.ts); null: no specific words (the fallback). */
const WORDS: Record<FailureCode, Words | null> = {
  not_served: {
    summary: 'No longer offered',
    explanation: 'The service no longer offers this file: its set has probably left "accepted" (sent back for rework or rejected). Nothing to do; if the set is accepted again, the next Sync downloads it.',
  },
  hash_mismatch: {
    summary: 'Arrived damaged',
    explanation: `The file arrived damaged several times in a row (its contents did not match the checksum the service published), so it was discarded rather than kept. ${TRY_AGAIN} ${TELL_PROVIDER}`,
  },
  oversize: {
    summary: 'Larger than announced',
    explanation: `The service sent more data than the file's announced size, several times, so the file was discarded. ${TELL_PROVIDER}`,
  },
  auth: {
    summary: 'API key rejected',
    explanation: 'The service rejected the API key (it may have been revoked or expired). Connect again with a valid key, then press Sync.',
  },
  forbidden: {
    summary: 'Access refused',
    explanation: 'The service refused access to this file: the API key may lack the permission to download files, or the file belongs to another account. Check the key with the data provider, then press Sync again.',
  },
  rate_limited: {
    summary: 'Service busy',
    explanation: `The service kept asking the app to slow down (too many requests). Wait a few minutes; fewer parallel downloads in Settings also help. ${TRY_AGAIN}`,
  },
  server_error: {
    summary: 'Service error',
    explanation: `The service kept answering with a server error. The problem is on the service's side, not yours. ${TRY_AGAIN} ${TELL_PROVIDER}`,
  },
  tls: {
    summary: 'Certificate not trusted',
    explanation: "The service's certificate was not accepted, so the connection is not secure and nothing was sent. Check the service address; on a company network, ask IT whether a proxy replaces certificates.",
  },
  stalled: {
    summary: 'Download stalled',
    explanation: `Data stopped arriving, or came slower than 1 KiB/s, several times in a row. Check your connection (Wi-Fi, VPN, proxy). ${TRY_AGAIN}`,
  },
  unstable: {
    summary: 'Connection too unstable',
    explanation: `The file was fetched over and over (more than several times its size) without ever completing, so the app stopped trying for this sync. Check your connection. ${TRY_AGAIN}`,
  },
  connection: {
    summary: 'Connection kept breaking',
    explanation: `The connection to the service broke before the whole file arrived, several times in a row. Check your connection (Wi-Fi, VPN, proxy). ${TRY_AGAIN}`,
  },
  escaped: {
    summary: 'Folder led outside dataset',
    explanation: "The file's folder in the dataset was replaced by a link to somewhere else while it was being saved, so the file was not put there. Check the dataset folder for links you did not create, then press Sync again.",
  },
  bad_listing: {
    summary: 'Wrong listing from service',
    explanation: `The service described this file in a way the app cannot accept (a wrong name, ID or answer), so it was not downloaded. This is a fault on the service's side. ${TELL_PROVIDER}`,
  },
  disk_full: {
    summary: 'Disk full',
    explanation: 'The disk of the dataset folder is full. Free some space, then press Sync again: partial downloads are kept and resume.',
  },
  not_writable: {
    summary: 'Folder not writable',
    explanation: 'The app may not write into the dataset folder. Check its permissions (or choose another folder), then press Sync again.',
  },
  storage: {
    summary: 'Could not store',
    explanation: `The file arrived whole but could not be stored in the dataset. Check the dataset folder or bucket (its details below say what failed), then press Sync again. ${TRY_AGAIN}`,
  },
  unknown: null,
};

/**
 * Events without a code (history written by versions before codes existed) are read by the
 * shape of their reason text; first match wins, the more specific shapes first.
 */
const LEGACY_SHAPES: ReadonlyArray<readonly [RegExp, FailureCode]> = [
  [/not served \(404\)/, 'not_served'],
  [/SHA-256 mismatch/, 'hash_mismatch'],
  [/sent more than the announced/, 'oversize'],
  [/\(401\)|API key was rejected/, 'auth'],
  [/HTTP 403\b/, 'forbidden'],
  [/HTTP 429\b/, 'rate_limited'],
  [/HTTP 5\d\d\b/, 'server_error'],
  [/TLS certificate not accepted/, 'tls'],
  [/stalled/, 'stalled'],
  [/bytes received for a file of/, 'unstable'],
  [/ended early|could not reach|transfer from .* failed|connection refused|range not satisfiable|unexpected Content-Range/, 'connection'],
  [/no longer resolves inside DEST|replaced by a link/, 'escaped'],
  [/file name .* (does not have the form|names set|names slot|appears twice)|is not a positive integer|breaks the API contract|unexpected answer|not valid JSON|refusing to send the API key/, 'bad_listing'],
  [/disk is full/, 'disk_full'],
  [/not writable/, 'not_writable'],
];

const FALLBACK: Words = {
  summary: 'Could not download',
  explanation: `The file could not be downloaded. Press Sync again to retry it. ${TELL_PROVIDER}`,
};

/** The code of a failure: the engine's when it gave one, else read from the shape of an older reason text. */
export function codeOf(reason: string | undefined, code?: FailureCode): FailureCode {
  if (code !== undefined) return code;
  const text = reason ?? '';
  return LEGACY_SHAPES.find(([shape]) => shape.test(text))?.[1] ?? 'unknown';
}

/**
 * The plain-words reading of a failure: chosen by the engine's code, so rewording a reason
 * cannot change what the user is told; the reason itself is the detail.
 */
export function explainFailure(reason: string | undefined, code?: FailureCode): PlainFailure {
  const text = reason ?? '';
  const words = WORDS[codeOf(reason, code)] ?? FALLBACK;
  const gaveUp = /gave up after (\d+) attempts/.exec(text);
  const tries = gaveUp ? ` The app tried ${gaveUp[1]} times.` : '';
  return { summary: words.summary, explanation: words.explanation + tries, detail: text ? shortDetail(text) : 'No reason was reported.' };
}

const DAMAGE_WORDS: Record<'missing' | 'changed', Words> = {
  missing: {
    summary: 'Missing on disk',
    explanation: 'Verify found this file missing from the dataset folder. Press Repair to download it again.',
  },
  changed: {
    summary: 'Changed on disk',
    explanation: "Verify found this file's contents changed since it was verified (its SHA-256 no longer matches the manifest). Press Repair to download it again.",
  },
};

/** A Files-table row's failure in plain words: what Verify found on disk, else the engine's failure by its code. */
export function explainRow(row: { reason?: string; code?: FailureCode; damage?: 'missing' | 'changed' }): PlainFailure {
  if (!row.damage) return explainFailure(row.reason, row.code);
  return { ...DAMAGE_WORDS[row.damage], detail: row.reason ? shortDetail(row.reason) : 'No reason was reported.' };
}

/** How a failed row's state reads: a Verify finding as such, anything else as "Failed: …". */
export function failedRowText(row: { reason?: string; code?: FailureCode; damage?: 'missing' | 'changed' }): string {
  const words = explainRow(row);
  return row.damage ? words.summary : `Failed: ${words.summary}`;
}

/** True when the failure has specific words (not the fallback). */
export function isKnownFailure(reason: string, code?: FailureCode): boolean {
  return WORDS[codeOf(reason, code)] !== null;
}

/**
 * The engine's reason for people who want it: the row's own path and request paths such as
 * "GET /api/v1/partner/files/54…" are cut to their last part, and key-like text is hidden
 * (the engine redacts the key already; this is a second guard for text copied out of the app).
 */
export function shortDetail(reason: string): string {
  return reason
    .replace(/^(?:file|GET) (?!\/)\S+?: /, '')
    .replace(/\b(GET|HEAD|POST|PUT|PATCH|DELETE) (\/[^\s:]*)/g, (_m, method: string, path: string) => `${method} ${lastSegments(path)}`)
    .replace(/\bhttps?:\/\/([^/\s]+)\/[^\s)]*/g, (_m, host: string) => `${host}/…`)
    .replace(/\b(Bearer|Basic|Token)\s+[^\s)]+/gi, '$1 [hidden]')
    .replace(/\b[a-z]{2,5}_(?:live|test)_[\w[\]-]*/gi, '[key hidden]');
}

/** A sync warning for the window: "…; retry 2" said as a retry, request paths shortened, keys hidden. */
export function plainWarning(message: string): string {
  const retried = /; retry (\d+)$/.exec(message);
  const detail = shortDetail(retried ? message.slice(0, retried.index) : message);
  return retried ? `Asked again (retry ${retried[1]}) after: ${detail}` : detail;
}

function lastSegments(path: string): string {
  const parts = path.split('/').filter(Boolean);
  return parts.length <= 2 ? path : `…/${parts.slice(-2).join('/')}`;
}

/** The text the Copy button puts on the clipboard: enough for a support message, nothing secret. */
export function failureReport(path: string, failure: PlainFailure): string {
  return `File: ${path}\nProblem: ${failure.summary}. ${failure.explanation}\nDetails: ${failure.detail}`;
}

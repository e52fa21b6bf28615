import type { HistoryEntry, VerifyRun } from '../../src-shared/ipc-contract';
import { consentMissingWords } from '../../src-shared/consent-words';
import type { SyncSummary } from '../../src-shared/sync-events';
import { verifyVerdict } from '../../src-shared/verify-verdict';
import { formatBytes, formatDateTime, formatDuration } from '../format';

function outcome(s: SyncSummary): string {
  if (s.cancelled) return 'Cancelled';
  if (s.fatal) return `Stopped: ${s.fatal.message}`;
  if (s.exitCode === 0) return s.consentMissingSets ? `All verified; ${consentMissingWords(s.consentMissingSets)}` : 'All verified';
  if (s.exitCode === 1) return 'Some failed';
  return 'Failed';
}

const KIND: Record<HistoryEntry['kind'], string> = { sync: 'Sync', repair: 'Repair', verify: 'Verify' };

function VerifyRow({ v }: { v: VerifyRun }) {
  const verdict = verifyVerdict(v);
  return (
    <>
      <td className="num">–</td>
      <td className="num">{v.ok} OK</td>
      <td className="num">{v.missing + v.changed}</td>
      <td className="num">{formatBytes(v.bytesHashed)} hashed</td>
      <td>–</td>
      <td className={verdict.ok ? 'tone-ok' : 'tone-warn'}>{verdict.words.charAt(0).toUpperCase() + verdict.words.slice(1)}</td>
    </>
  );
}

/** The folder's runs, newest first; each row says whether it was a sync, a repair or a verify. */
export function SyncHistory({ history }: { history: HistoryEntry[] | undefined }) {
  if (!history) return <p className="muted">Loading history…</p>;
  if (history.length === 0) return <p className="muted">No syncs yet.</p>;
  return (
    <div className="table-wrap">
      <table className="data-table history">
        <thead>
          <tr>
            <th scope="col">What</th>
            <th scope="col">Started</th>
            <th scope="col">Duration</th>
            <th scope="col" className="num">Downloaded</th>
            <th scope="col" className="num">Up to date</th>
            <th scope="col" className="num">Failed</th>
            <th scope="col" className="num">Bytes</th>
            <th scope="col">Sets not served</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {history.map((s) => (
            <tr key={`${s.kind}-${s.startedAt}`} data-kind={s.kind}>
              <td>{KIND[s.kind]}</td>
              <td>{formatDateTime(s.startedAt)}</td>
              <td>{formatDuration(s.durationMs / 1000)}</td>
              {s.kind === 'verify' ? (
                <VerifyRow v={s} />
              ) : (
                <>
                  <td className="num">{s.filesDownloaded}</td>
                  <td className="num">{s.filesUpToDate}</td>
                  <td className="num">{s.filesFailed}</td>
                  <td className="num">{formatBytes(s.bytesDownloaded)}</td>
                  <td>{s.setsNotServed.length ? s.setsNotServed.join(', ') : '–'}</td>
                  <td className={s.exitCode === 0 && !s.cancelled && !s.consentMissingSets ? 'tone-ok' : 'tone-warn'}>{outcome(s)}</td>
                </>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

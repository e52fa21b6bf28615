import type { VerifyReport } from '../../src-shared/sync-events';
import { formatBytes } from '../format';
import { verifyVerdict } from '../../src-shared/verify-verdict';

function PathList({ title, paths, tone }: { title: string; paths: string[]; tone: string }) {
  if (paths.length === 0) return null;
  return (
    <details className={`verify-list tone-${tone}`} open={paths.length <= 10}>
      <summary>
        {title} ({paths.length})
      </summary>
      <ul className="mono">
        {paths.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
    </details>
  );
}

/** `onRepair` (absent while a sync runs) offers to download the missing and changed files again. */
export function VerifyReportView({ report, onRepair }: { report: VerifyReport; onRepair?: () => void }) {
  const counts = { missing: report.missing.length, changed: report.changed.length, extra: report.extra.length };
  // The same verdict as the dataset card's "Last verified": extra files are said, not called damage.
  const verdict = verifyVerdict(counts);
  const damaged = counts.missing + counts.changed;
  return (
    <div className="verify-report" data-testid="verify-report">
      <p className={verdict.ok ? 'tone-ok' : 'tone-warn'} role="status">
        <strong>{verdict.ok ? `Dataset ${verdict.words}.` : 'Dataset differs from its manifest.'}</strong> {report.ok} of {report.filesChecked} files OK · {report.missing.length} missing ·{' '}
        {report.changed.length} changed · {report.extra.length} extra · {formatBytes(report.bytesHashed)} hashed
      </p>
      <PathList title="Missing" paths={report.missing} tone="bad" />
      <PathList title="Changed" paths={report.changed} tone="bad" />
      <PathList title="Extra (not in the manifest)" paths={report.extra} tone="warn" />
      {damaged > 0 && (
        <div className="actions">
          <button type="button" className="primary" onClick={onRepair} disabled={!onRepair}>
            Repair {damaged === 1 ? '1 file' : `${damaged} files`}
          </button>
          {report.extra.length > 0 && <span className="muted">Extra files are kept.</span>}
        </div>
      )}
    </div>
  );
}

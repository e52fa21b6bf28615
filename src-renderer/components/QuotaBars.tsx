import type { Quota } from '../../src-shared/delivery-api';

/** One stacked bar per demographic group: accepted, then reserved, then what is still available of the target. */
export function QuotaBars({ quotas }: { quotas: Quota[] }) {
  if (quotas.length === 0) return <p className="muted">This collection has no quotas.</p>;
  return (
    <ul className="quota-list">
      {quotas.map((q) => (
        <QuotaBar key={`${q.group}:${q.value}`} quota={q} />
      ))}
    </ul>
  );
}

export function quotaText(q: Quota): string {
  return `${q.accepted} accepted, ${q.reserved} reserved, ${q.available} available of ${q.target}`;
}

function QuotaBar({ quota: q }: { quota: Quota }) {
  // Over-filled groups (accepted + reserved beyond target) scale to their sum so nothing overflows.
  const scale = Math.max(q.target, q.accepted + q.reserved, 1);
  const width = (n: number) => `${(Math.max(0, n) / scale) * 100}%`;
  const labelId = `quota-${q.group}-${q.value}`.replace(/[^A-Za-z0-9_-]/g, '_');
  return (
    <li className="quota">
      <div className="quota-head">
        <span id={labelId} className="quota-label">
          {q.label}
        </span>
        <span className="quota-numbers">
          <strong>{q.accepted}</strong> accepted · {q.reserved} reserved · {q.available} available <span className="muted">of {q.target}</span>
          {q.status !== 'open' && <span className="badge">{q.status}</span>}
        </span>
      </div>
      <div
        className="quota-bar"
        role="progressbar"
        aria-labelledby={labelId}
        aria-valuemin={0}
        aria-valuemax={q.target}
        aria-valuenow={Math.min(q.accepted, q.target)}
        aria-valuetext={quotaText(q)}
      >
        <span className="quota-accepted" style={{ width: width(q.accepted) }} />
        <span className="quota-reserved" style={{ width: width(q.reserved) }} />
      </div>
    </li>
  );
}

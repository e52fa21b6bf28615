import type { CollectionDetail } from '../../src-shared/delivery-api';
import { QuotaBars } from '../components/QuotaBars';
import { DatasetFolder } from '../components/DatasetFolder';
import { formatDeadline, formatPrice, humanize } from '../format';

export function OverviewPanel({ detail }: { detail: CollectionDetail }) {
  const { spec } = detail;
  const rules = spec.media_rules;
  return (
    <div className="overview">
      <section className="card" aria-labelledby="folder-title">
        <h3 id="folder-title" className="visually-hidden">
          Dataset folder
        </h3>
        <DatasetFolder collectionId={detail.id} />
      </section>
      <div className="overview-grid">
        <section className="card" aria-labelledby="quotas-title">
          <h3 id="quotas-title">Quotas by {humanize(spec.quota_field)}</h3>
          <div className="legend" aria-hidden="true">
            <span className="swatch quota-accepted" /> accepted <span className="swatch quota-reserved" /> reserved <span className="swatch quota-available" /> available
          </div>
          <QuotaBars quotas={detail.quotas} />
        </section>
        <section className="card" aria-labelledby="counts-title">
          <h3 id="counts-title">Sets</h3>
          <ul className="set-counts">
            {Object.entries(detail.sets).map(([state, count]) => (
              <li key={state} data-state={state}>
                <span className="count">{count}</span> <span className="muted">{humanize(state)}</span>
              </li>
            ))}
          </ul>
          <dl className="facts">
            <dt>Status</dt>
            <dd>{humanize(detail.status)}</dd>
            <dt>Price per set</dt>
            <dd>{formatPrice(detail.price_per_set, detail.currency)}</dd>
            <dt>Deadline</dt>
            <dd>{formatDeadline(detail.deadline)}</dd>
            <dt>Recruitment</dt>
            <dd>{humanize(spec.recruitment_status)}</dd>
          </dl>
        </section>
      </div>
      <section className="card" aria-labelledby="spec-title">
        <h3 id="spec-title">Specification</h3>
        <dl className="facts inline">
          <dt>Modality</dt>
          <dd>{humanize(spec.modality)}</dd>
          <dt>Participants per set</dt>
          <dd>{spec.participants_per_set}</dd>
          <dt>Participant fields</dt>
          <dd>{spec.participant_fields.length ? spec.participant_fields.map(humanize).join(', ') : 'none'}</dd>
          <dt>Consent version</dt>
          <dd className="mono">{spec.consent_version}</dd>
          <dt>Media rules</dt>
          <dd>
            at least {rules.min_width}×{rules.min_height} px, {rules.min_fps} fps, {rules.min_duration}–{rules.max_duration} s; formats {rules.formats.join(', ')}
          </dd>
        </dl>
        <h4>Slots</h4>
        <ol className="slots">
          {[...spec.slots]
            .sort((a, b) => a.index - b.index)
            .map((slot) => (
              <li key={slot.index} value={slot.index}>
                <strong>{slot.title}</strong> <span className="mono muted">{slot.key}</span>
                <div className="muted">{slot.description}</div>
              </li>
            ))}
        </ol>
      </section>
    </div>
  );
}

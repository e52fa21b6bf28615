// Data Champ discovery: every filter of the search, results a page at a time.
import { countryName } from './country';
import { useEffect, useState, type FormEvent } from 'react';
import type { DataChamp } from '../../src-shared/recruiter-ipc-contract';
import { ChampProfile } from './ChampProfile';
import { GuardedButton } from './GuardedButton';
import { useFocusOnAppear } from './focus';
import { ErrorMessage } from '../components/ErrorMessage';
import { formatMoney, humanize, parseAmount } from './rules';
import { CHAMPS_PER_PAGE, EMPTY_FILTERS, useChamps, type ChampFilters } from './stores/champs';

type RateField = 'minRate' | 'maxRate';

function checkFilters(f: ChampFilters): Partial<Record<RateField, string>> {
  const errors: Partial<Record<RateField, string>> = {};
  const amounts: Partial<Record<RateField, number>> = {};
  for (const field of ['minRate', 'maxRate'] as const) {
    if (f[field].trim() === '') continue;
    const parsed = parseAmount(f[field]);
    if (parsed.ok) amounts[field] = Number(parsed.value);
    else errors[field] = parsed.error;
  }
  if (amounts.minRate !== undefined && amounts.maxRate !== undefined && amounts.minRate > amounts.maxRate) {
    errors.maxRate = 'The maximum is below the minimum.';
  }
  return errors;
}

/**
 * A champion's skills, cut to one line in the table. The cut is only visual: the button's name
 * is the full list (screen readers read it all), focusing it unfolds the line, and Enter keeps
 * it unfolded after focus moves on.
 */
function SkillsText({ skills }: { skills: string[] }) {
  const [open, setOpen] = useState(false);
  const text = skills.join(', ');
  if (skills.length === 0) return <>—</>;
  return (
    <button type="button" className="rc-skills-text" aria-expanded={open} title={text} onClick={() => setOpen((o) => !o)}>
      {text}
    </button>
  );
}

export function ChampSearch() {
  const { applied, page, shownPage, data, loading, error, search, setPage } = useChamps();
  const [filters, setFilters] = useState<ChampFilters>(applied);
  const [errors, setErrors] = useState<Partial<Record<RateField, string>>>({});
  const [profile, setProfile] = useState<DataChamp | null>(null);
  const headingRef = useFocusOnAppear<HTMLHeadingElement>();

  useEffect(() => {
    if (!useChamps.getState().data) void useChamps.getState().search(useChamps.getState().applied);
  }, []);

  const text = (field: Exclude<keyof ChampFilters, 'verifiedOnly' | 'availability'>) => ({
    value: filters[field],
    onChange: (e: { target: { value: string } }) => setFilters((f) => ({ ...f, [field]: e.target.value })),
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found = checkFilters(filters);
    setErrors(found);
    if (Object.keys(found).length === 0) void search(filters);
  };

  const lastPage = data ? Math.max(1, Math.ceil(data.total / CHAMPS_PER_PAGE)) : 1;
  const rateError = (field: RateField) =>
    errors[field] && (
      <span id={`rc-${field}-error`} className="rc-field-error" data-field-error={field}>
        {errors[field]}
      </span>
    );

  return (
    <div className="rc-champs">
      <form className="card rc-filters" onSubmit={submit} aria-labelledby="rc-champs-title" noValidate>
        <h2 id="rc-champs-title" tabIndex={-1} ref={headingRef}>
          Find Data Champs
        </h2>
        <div className="rc-filter-grid">
          <label className="field">
            <span>Name</span>
            <input type="search" {...text('search')} placeholder="e.g. Amara" />
          </label>
          <label className="field">
            <span>Skills</span>
            <input type="text" {...text('skills')} placeholder="survey, smartphone" spellCheck={false} />
          </label>
          <label className="field">
            <span>City or region</span>
            <input type="text" {...text('location')} />
          </label>
          <label className="field">
            <span>Country</span>
            <input type="text" {...text('country')} placeholder="name or code, e.g. DE" aria-describedby="rc-country-hint" />
            <small id="rc-country-hint" className="muted" data-testid="country-hint">
              {countryName(filters.country) !== filters.country.trim() ? `Searching for ${countryName(filters.country)}` : ''}
            </small>
          </label>
          <label className="field">
            <span>Availability</span>
            <select value={filters.availability} onChange={(e) => setFilters((f) => ({ ...f, availability: e.target.value as ChampFilters['availability'] }))}>
              <option value="">Any</option>
              <option value="available">Available</option>
              <option value="busy">Busy</option>
              <option value="unavailable">Unavailable</option>
            </select>
          </label>
          <div className="field">
            <label htmlFor="rc-minRate">Min daily rate</label>
            <input id="rc-minRate" type="text" inputMode="decimal" {...text('minRate')} aria-invalid={Boolean(errors.minRate)} aria-describedby={errors.minRate ? 'rc-minRate-error' : undefined} />
            {rateError('minRate')}
          </div>
          <div className="field">
            <label htmlFor="rc-maxRate">Max daily rate</label>
            <input id="rc-maxRate" type="text" inputMode="decimal" {...text('maxRate')} aria-invalid={Boolean(errors.maxRate)} aria-describedby={errors.maxRate ? 'rc-maxRate-error' : undefined} />
            {rateError('maxRate')}
          </div>
          <label className="checkbox rc-verified-filter">
            <input type="checkbox" checked={filters.verifiedOnly} onChange={(e) => setFilters((f) => ({ ...f, verifiedOnly: e.target.checked }))} />
            <span>Verified only</span>
          </label>
        </div>
        <div className="actions">
          <GuardedButton type="submit" className="primary" unavailable={loading}>
            Search
          </GuardedButton>
          <button
            type="button"
            onClick={() => {
              setFilters(EMPTY_FILTERS);
              setErrors({});
              void search(EMPTY_FILTERS);
            }}
          >
            Clear filters
          </button>
        </div>
      </form>
      {error && <ErrorMessage error={error} summary="The search failed." />}
      {data && (
        <section className="card" aria-labelledby="rc-results-title">
          <div className="screen-head">
            <h3 id="rc-results-title" data-testid="champ-total">
              {data.total === 1 ? '1 Data Champ' : `${data.total} Data Champs`}
            </h3>
            <div className="pager">
              <GuardedButton unavailable={page <= 1 || loading} onClick={() => void setPage(page - 1)}>
                ← Previous
              </GuardedButton>
              <span aria-live="polite" data-testid="champ-page">
                {/* The label names the rows on screen: while another page loads, it says so. */}
                {loading && page !== shownPage ? `Loading page ${page}…` : `Page ${shownPage} of ${lastPage}`}
              </span>
              <GuardedButton unavailable={!data.has_more || loading} onClick={() => void setPage(page + 1)}>
                Next →
              </GuardedButton>
            </div>
          </div>
          {data.data_champs.length === 0 ? (
            <p className="muted">No Data Champs match these filters.</p>
          ) : (
            <div className="table-wrap">
              <table className="data-table rc-champ-table" aria-busy={loading}>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Location</th>
                    <th scope="col">Skills</th>
                    <th scope="col">Availability</th>
                    <th scope="col" className="num">Daily rate</th>
                    <th scope="col" className="num">Rating</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.data_champs.map((c) => (
                    <tr key={c.id} data-champ-id={c.id}>
                      <td>
                        {c.name}
                        {c.verified && <span className="badge rc-verified">Verified</span>}
                      </td>
                      <td>{[c.city, c.country].filter(Boolean).join(', ') || '—'}</td>
                      <td className="rc-skills-cell">
                        <SkillsText skills={c.skills} />
                      </td>
                      <td>
                        <span className={`rc-availability rc-avail-${c.availability ?? 'unknown'}`}>{c.availability ? humanize(c.availability) : '—'}</span>
                      </td>
                      <td className="num">{formatMoney(c.daily_rate, c.currency)}</td>
                      <td className="num">{c.rating === null ? '—' : c.rating.toFixed(1)}</td>
                      <td>
                        <button type="button" aria-label={`Profile of ${c.name}`} onClick={() => setProfile(c)}>
                          Profile…
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
      {profile && <ChampProfile champ={profile} onClose={() => setProfile(null)} />}
    </div>
  );
}

// Create or edit a job. The form's own checks show inline on submit; the service's 422 field
// errors land on the same fields, and errors about anything else (e.g. the job's state) show
// above the buttons.
import { closeSkills, unknownSkills, useKnownSkills } from './known-skills';
import { useEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { IpcError } from '../../src-shared/ipc-contract';
import { ErrorMessage } from '../components/ErrorMessage';
import {
  changedFields, checkDraft, draftOf, EMPTY_DRAFT, humanize, JOB_FIELDS, JOB_LIMITS, JOB_TYPE_OPTIONS, LOCATION_TYPE_OPTIONS, placeFieldErrors,
  RATE_TYPE_OPTIONS, toJobInput, type JobDraft, type JobField,
} from './rules';
import { GuardedButton } from './GuardedButton';
import { useFocusOnAppear } from './focus';
import { useJob } from './stores/job';
import { useJobs } from './stores/jobs';
import { useRecruiterView } from './stores/view';

const LABELS: Record<JobField, string> = {
  title: 'Title',
  description: 'Description',
  job_type: 'Job type',
  location_type: 'Location',
  rate: 'Rate',
  rate_type: 'Rate per',
  currency: 'Currency',
  number_of_positions: 'Positions',
  required_skills: 'Required skills',
};

function Field({ name, error, hint, children }: { name: JobField; error: string | undefined; hint?: string; children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby': string | undefined }) => ReactNode }) {
  const id = `rc-job-${name}`;
  const described = [error ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field rc-field rc-field-${name}`}>
      <label htmlFor={id}>{LABELS[name]}</label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': described })}
      {hint && (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      )}
      {error && (
        <span id={`${id}-error`} className="rc-field-error" data-field-error={name}>
          {error}
        </span>
      )}
    </div>
  );
}

export function JobForm({ jobId }: { jobId: number | null }) {
  const job = useJob((s) => s.job);
  const loadJob = useJob((s) => s.load);
  const loadError = useJob((s) => s.error);
  const create = useJob((s) => s.create);
  const update = useJob((s) => s.update);
  const reloadJobs = useJobs((s) => s.load);
  const go = useRecruiterView((s) => s.go);
  const editing = jobId !== null;
  const original = useMemo(() => (editing && job?.id === jobId ? draftOf(job) : null), [editing, job, jobId]);

  const [draft, setDraft] = useState<JobDraft>(original ?? EMPTY_DRAFT);
  const knownSkills = useKnownSkills();
  const typedSkills = draft.required_skills.split(',').map((x) => x.trim());
  // Warned, not refused: the service may know skills this window has not seen. While one is typed the warning names the close ones.
  const strangeSkills = unknownSkills(typedSkills.filter(Boolean), knownSkills);
  const [errors, setErrors] = useState<Partial<Record<JobField, string>>>({});
  const [otherErrors, setOtherErrors] = useState<string[]>([]);
  const [failure, setFailure] = useState<IpcError | null>(null);
  const [saving, setSaving] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const headingRef = useFocusOnAppear<HTMLHeadingElement>();

  useEffect(() => {
    if (editing && job?.id !== jobId) void loadJob(jobId);
  }, [editing, job?.id, jobId, loadJob]);
  useEffect(() => {
    if (original) setDraft(original);
  }, [original]);

  if (editing && !original) return loadError ? <ErrorMessage error={loadError} summary="The job could not be loaded." /> : <p className="muted">Loading the job…</p>;

  const set = (field: JobField) => (e: { target: { value: string } }) => {
    setDraft((d) => ({ ...d, [field]: e.target.value }));
    // An error stays until the field is edited, so people see what they are fixing.
    if (errors[field]) setErrors((all) => ({ ...all, [field]: undefined }));
  };

  const focusFirstError = (fields: Partial<Record<JobField, string>>) => {
    const first = JOB_FIELDS.find((f) => fields[f]);
    if (first) requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>(`#rc-job-${first}`)?.focus());
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setFailure(null);
    setOtherErrors([]);
    const local = checkDraft(draft);
    if (Object.keys(local).length > 0) {
      setErrors(local);
      focusFirstError(local);
      return;
    }
    setErrors({});
    let result;
    if (editing) {
      const changes = changedFields(original ?? draft, draft);
      if (Object.keys(changes).length === 0) {
        go({ screen: 'job', jobId });
        return;
      }
      setSaving(true);
      result = await update(jobId, changes);
    } else {
      setSaving(true);
      result = await create(toJobInput(draft));
    }
    setSaving(false);
    if (result.ok) {
      void reloadJobs();
      go({ screen: 'job', jobId: result.value.id });
      return;
    }
    if (result.error.kind === 'validation') {
      const placed = placeFieldErrors(result.error.fieldErrors);
      setErrors(placed.byField);
      setOtherErrors(placed.other);
      focusFirstError(placed.byField);
      if (Object.keys(placed.byField).length === 0 && placed.other.length === 0) setFailure(result.error);
    } else setFailure(result.error);
  };

  const fieldCount = Object.values(errors).filter(Boolean).length;
  return (
    <form ref={formRef} className="card rc-job-form" onSubmit={submit} noValidate aria-labelledby="rc-job-form-title">
      <div className="screen-head">
        <h2 id="rc-job-form-title" tabIndex={-1} ref={headingRef}>{editing ? `Edit “${original?.title ?? ''}”` : 'New job'}</h2>
        {!editing && <span className="muted small">Created as a draft: publish it when it is ready.</span>}
      </div>
      {fieldCount > 0 && (
        <p className="rc-form-summary" role="alert">
          {fieldCount === 1 ? 'One field needs attention.' : `${fieldCount} fields need attention.`}
        </p>
      )}
      <div className="rc-form-grid">
        {/* No maxLength: a pasted title would be cut silently; the rule says how long it is instead. */}
        <Field name="title" error={errors.title} hint={`At most ${JOB_LIMITS.title} characters`}>
          {(p) => <input {...p} type="text" value={draft.title} onChange={set('title')} />}
        </Field>
        <Field name="job_type" error={errors.job_type}>
          {(p) => (
            <select {...p} value={draft.job_type} onChange={set('job_type')}>
              {JOB_TYPE_OPTIONS.map((t) => (
                <option key={t} value={t}>
                  {humanize(t)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field name="description" error={errors.description}>
          {(p) => <textarea {...p} rows={3} value={draft.description} onChange={set('description')} />}
        </Field>
        <Field name="location_type" error={errors.location_type}>
          {(p) => (
            <select {...p} value={draft.location_type} onChange={set('location_type')}>
              {LOCATION_TYPE_OPTIONS.map((t) => (
                <option key={t} value={t}>
                  {humanize(t)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <div className="rc-form-row">
          <Field name="rate" error={errors.rate} hint="e.g. 150.00 or 150,00">
            {(p) => <input {...p} type="text" inputMode="decimal" value={draft.rate} onChange={set('rate')} placeholder="150.00" />}
          </Field>
          <Field name="currency" error={errors.currency}>
            {(p) => <input {...p} type="text" value={draft.currency} onChange={set('currency')} maxLength={3} size={4} />}
          </Field>
          <Field name="rate_type" error={errors.rate_type}>
            {(p) => (
              <select {...p} value={draft.rate_type} onChange={set('rate_type')}>
                {RATE_TYPE_OPTIONS.map((t) => (
                  <option key={t} value={t}>
                    {humanize(t)}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <Field name="number_of_positions" error={errors.number_of_positions}>
          {(p) => <input {...p} type="text" inputMode="numeric" value={draft.number_of_positions} onChange={set('number_of_positions')} size={6} />}
        </Field>
        <Field name="required_skills" error={errors.required_skills} hint="Comma-separated skill identifiers, e.g. survey, smartphone">
          {(p) => (
            <>
              <input {...p} type="text" value={draft.required_skills} onChange={set('required_skills')} spellCheck={false} list="rc-known-skills" autoComplete="off" />
              {/* The known identifiers as you type: each suggestion completes the last skill of the list. */}
              <datalist id="rc-known-skills">
                {knownSkills.map((k) => (
                  <option key={k} value={[...typedSkills.slice(0, -1), k].join(', ')} label={k} />
                ))}
              </datalist>
            </>
          )}
        </Field>
        {strangeSkills.length > 0 && (
          <p className="tone-warn rc-skill-warning" data-testid="unknown-skills" role="status">
            {strangeSkills
              .map((s) => {
                const close = closeSkills(s, knownSkills);
                return `"${s}" is not a skill this service uses${close.length > 0 ? ` (did you mean ${close.map((c) => `"${c}"`).join(' or ')}?)` : ''}`;
              })
              .join('; ')}
            . Data Champs are matched by these identifiers exactly.
          </p>
        )}
      </div>
      {otherErrors.length > 0 && (
        <div className="error" role="alert">
          {otherErrors.map((m) => (
            <div key={m}>{m}</div>
          ))}
        </div>
      )}
      {failure && <ErrorMessage error={failure} summary={editing ? 'The job could not be saved.' : 'The job could not be created.'} />}
      <div className="actions">
        <GuardedButton type="submit" className="primary" unavailable={saving}>
          {saving ? 'Saving…' : editing ? 'Save changes' : 'Create draft'}
        </GuardedButton>
        <button type="button" onClick={() => go(editing ? { screen: 'job', jobId } : { screen: 'jobs' })}>
          Cancel
        </button>
      </div>
    </form>
  );
}

// The part of a collection the dataset holds (slots by key, quota groups by value; "All" by
// default), remembered in main with the dataset and given to every sync; and the sets that left
// the dataset (its quarantine, DEST.withdrawn) with Delete withdrawn data, which runs the same
// code as `purge-withdrawn`.
import { useEffect, useState } from 'react';
import type { DatasetSubset, IpcError, WithdrawnData } from '../../src-shared/ipc-contract';
import { invoke } from '../api';
import { formatBytes } from '../format';
import { ConfirmDialog } from '../recruiter/Dialog';
import { useCollections } from '../stores/collections';
import { useSettings } from '../stores/settings';
import { ErrorMessage } from './ErrorMessage';

const WHOLE: DatasetSubset = { slots: null, groups: null };

/** "Subset: slots greeting, wave; groups 18-29", or "Whole collection". */
export function subsetWords(subset: DatasetSubset | undefined): string {
  if (!subset || (subset.slots === null && subset.groups === null)) return 'Whole collection';
  const parts = [subset.slots && `slots ${subset.slots.join(', ')}`, subset.groups && `groups ${subset.groups.join(', ')}`].filter(Boolean);
  return `Subset: ${parts.join('; ')}`;
}

/** One group of checkboxes: All, or some of `options`. */
function ChoiceGroup({ legend, name, options, chosen, onChange, disabled }: {
  legend: string; name: string; options: Array<{ value: string; label: string }>; chosen: string[] | null; onChange: (next: string[] | null) => void; disabled: boolean;
}) {
  const toggle = (value: string, on: boolean) => {
    const current = chosen ?? [];
    const next = on ? [...current, value] : current.filter((v) => v !== value);
    onChange(next.length === 0 ? null : next);
  };
  return (
    <fieldset className="subset-group" disabled={disabled}>
      <legend>{legend}</legend>
      <label>
        <input type="checkbox" name={`${name}-all`} checked={chosen === null} onChange={(e) => e.target.checked && onChange(null)} /> All
      </label>
      {options.map((o) => (
        <label key={o.value}>
          <input type="checkbox" name={name} value={o.value} checked={chosen?.includes(o.value) ?? false} onChange={(e) => toggle(o.value, e.target.checked)} /> {o.label}
        </label>
      ))}
    </fieldset>
  );
}

/** The Subset control of the Sync tab; disabled while a sync runs (the choice applies from the next one). */
export function SubsetControl({ collectionId, disabled }: { collectionId: number; disabled: boolean }) {
  const detail = useCollections((s) => s.details[collectionId]?.detail ?? null);
  const remembered = useSettings((s) => s.settings?.collections[String(collectionId)]?.subset);
  const loadSettings = useSettings((s) => s.load);
  const [error, setError] = useState<IpcError | null>(null);
  // The box ticks at once; main's answer (the settings read again) replaces it.
  const [pending, setPending] = useState<DatasetSubset | null>(null);
  const subset = pending ?? remembered ?? WHOLE;

  const save = async (next: DatasetSubset) => {
    setPending(next);
    const result = await invoke('dataset:setSubset', { collectionId, ...next });
    setError(result.ok ? null : result.error);
    await loadSettings();
    setPending(null);
  };
  const slots = (detail?.spec.slots ?? []).map((s) => ({ value: s.key, label: s.title ? `${s.title} (${s.key})` : s.key }));
  const groups = [...new Map((detail?.quotas ?? []).map((q) => [q.value, { value: q.value, label: q.label || q.value }])).values()];

  return (
    <details className="subset" data-testid="subset">
      <summary data-testid="subset-words">{subsetWords(remembered)}</summary>
      <p className="muted">Sync only some slots or quota groups. What falls out of the choice moves to the withdrawn folder beside the dataset at the next sync.</p>
      {slots.length > 0 && <ChoiceGroup legend="Slots" name="subset-slot" options={slots} chosen={subset.slots} disabled={disabled} onChange={(s) => void save({ ...subset, slots: s })} />}
      {groups.length > 0 && <ChoiceGroup legend="Quota groups" name="subset-group" options={groups} chosen={subset.groups} disabled={disabled} onChange={(g) => void save({ ...subset, groups: g })} />}
      {error && <ErrorMessage error={error} summary="Could not keep the subset." />}
    </details>
  );
}

/** The sets that left the dataset, with Delete withdrawn data (asked first). `refresh` changes when a run ends. */
export function WithdrawnView({ collectionId, refresh, running }: { collectionId: number; refresh: unknown; running: boolean }) {
  const [data, setData] = useState<WithdrawnData | null>(null);
  const [error, setError] = useState<IpcError | null>(null);
  const [asking, setAsking] = useState(false);
  const [deleted, setDeleted] = useState<WithdrawnData | null>(null);

  const load = async () => {
    const result = await invoke('dataset:withdrawn', { collectionId });
    if (result.ok) setData(result.value);
    setError(result.ok ? null : result.error);
  };
  useEffect(() => {
    void load();
  }, [collectionId, refresh, running]);

  const purge = async () => {
    setAsking(false);
    const result = await invoke('dataset:purgeWithdrawn', { collectionId });
    setDeleted(result.ok ? result.value : null);
    setError(result.ok ? null : result.error);
    await load();
  };

  const count = data?.sets.length ?? 0;
  const setsWord = (n: number) => (n === 1 ? '1 set' : `${n} sets`);
  return (
    <div className="withdrawn" data-testid="withdrawn">
      {data && (
        <p data-testid="withdrawn-words">
          {count === 0
            ? 'Withdrawn: none.'
            : `Withdrawn: ${setsWord(count)} (${data.sets.map((s) => s.name).join(', ')}), ${formatBytes(data.bytes)} in ${data.location}.`}
        </p>
      )}
      {count > 0 && (
        <button type="button" className="danger" onClick={() => setAsking(true)} disabled={running} title={running ? 'A sync is running: delete withdrawn data when it ends' : undefined}>
          Delete withdrawn data
        </button>
      )}
      {deleted && deleted.objects > 0 && (
        <p className="muted" role="status" data-testid="withdrawn-deleted">
          Deleted {setsWord(deleted.sets.length)} ({formatBytes(deleted.bytes)}) of withdrawn data.
        </p>
      )}
      {asking && data && (
        <ConfirmDialog
          title="Delete withdrawn data?"
          message={`This deletes ${setsWord(count)} (${data.objects} ${data.objects === 1 ? 'file' : 'files'}, ${formatBytes(data.bytes)}) that left the dataset, from ${data.location}. They cannot be brought back.`}
          confirmLabel="Delete"
          onConfirm={() => void purge()}
          onCancel={() => setAsking(false)}
        />
      )}
      {error && <ErrorMessage error={error} summary="Could not read or delete the withdrawn data." />}
    </div>
  );
}

import { useEffect, useState } from 'react';
import { bwlimitFieldText, concurrencySchema, parseBwlimitMebibytes } from '../../src-shared/settings';
import { useSettings } from '../stores/settings';
import { ErrorMessage } from './ErrorMessage';

const AUTO_SYNC_CHOICES: Array<{ value: number | null; label: string }> = [
  { value: null, label: 'Off' },
  { value: 15, label: 'Every 15 minutes' },
  { value: 30, label: 'Every 30 minutes' },
  { value: 60, label: 'Every 60 minutes' },
];

export function SettingsCard() {
  const settings = useSettings((s) => s.settings);
  const error = useSettings((s) => s.error);
  const { load, update } = useSettings.getState();
  // The same declaration main enforces: the form says why a value is refused instead of reverting.
  const [concurrencyProblem, setConcurrencyProblem] = useState<string | null>(null);
  const [bwlimitProblem, setBwlimitProblem] = useState<string | null>(null);

  useEffect(() => {
    if (!settings) void load();
  }, [settings, load]);

  if (!settings) return null;
  return (
    <section className="card" aria-labelledby="settings-title">
      <h2 id="settings-title" tabIndex={-1}>
        Sync settings
      </h2>
      <div className="settings-grid">
        <label className="field">
          <span>Parallel downloads</span>
          <input
            type="number"
            min={concurrencySchema.minValue ?? undefined}
            max={concurrencySchema.maxValue ?? undefined}
            defaultValue={settings.concurrency}
            aria-invalid={concurrencyProblem !== null}
            onChange={(e) => {
              const parsed = concurrencySchema.safeParse(e.target.value === '' ? undefined : Number(e.target.value));
              setConcurrencyProblem(parsed.success ? null : `Parallel downloads ${parsed.error.issues[0]?.message ?? 'is not valid.'}`);
              if (parsed.success) void update({ concurrency: parsed.data });
            }}
          />
          {concurrencyProblem && (
            <span className="error" role="alert">
              {concurrencyProblem}
            </span>
          )}
        </label>
        <label className="field">
          <span>Bandwidth limit (MiB/s)</span>
          <input
            type="text"
            inputMode="decimal"
            placeholder="no limit"
            aria-label="Bandwidth limit (MiB/s)"
            defaultValue={bwlimitFieldText(settings.bwlimitBytesPerSecond)}
            aria-invalid={bwlimitProblem !== null}
            aria-describedby="bwlimit-hint"
            onChange={(e) => {
              const parsed = parseBwlimitMebibytes(e.target.value);
              setBwlimitProblem(parsed.ok ? null : `Bandwidth limit ${parsed.problem}`);
              if (parsed.ok) void update({ bwlimitBytesPerSecond: parsed.bytesPerSecond });
            }}
          />
          <small className="muted" id="bwlimit-hint">
            Total download rate of a sync in MiB/s (1 MiB = 1,048,576 bytes, as the CLI's --bwlimit 10M); empty or 0 = no limit. Applies from the next sync.
          </small>
          {bwlimitProblem && (
            <span className="error" role="alert">
              {bwlimitProblem}
            </span>
          )}
        </label>
        <label className="field">
          <span>Automatic sync</span>
          <select
            value={settings.autoSyncMinutes === null ? '' : String(settings.autoSyncMinutes)}
            onChange={(e) => void update({ autoSyncMinutes: e.target.value === '' ? null : Number(e.target.value) })}
          >
            {AUTO_SYNC_CHOICES.map((c) => (
              <option key={c.label} value={c.value === null ? '' : String(c.value)}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={settings.excludeGold} onChange={(e) => void update({ excludeGold: e.target.checked })} />
          <span>Leave out gold-standard sets</span>
        </label>
      </div>
      {error && <ErrorMessage error={error} summary="Settings were not saved." />}
    </section>
  );
}

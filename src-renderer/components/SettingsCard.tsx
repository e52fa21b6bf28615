import { useEffect } from 'react';
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

  useEffect(() => {
    if (!settings) void load();
  }, [settings, load]);

  if (!settings) return null;
  return (
    <section className="card" aria-labelledby="settings-title">
      <h2 id="settings-title">Sync settings</h2>
      <div className="settings-grid">
        <label className="field">
          <span>Parallel downloads</span>
          <input
            type="number"
            min={1}
            max={16}
            value={settings.concurrency}
            onChange={(e) => {
              const n = Number(e.target.value);
              if (Number.isInteger(n) && n >= 1 && n <= 16) void update({ concurrency: n });
            }}
          />
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

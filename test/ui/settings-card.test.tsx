// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { SettingsCard } from '../../src-renderer/components/SettingsCard';
import { setRendererApi } from '../../src-renderer/api';
import { useSettings } from '../../src-renderer/stores/settings';
import type { SettingsView } from '../../src-shared/ipc-contract';
import { FakeRendererApi, ok } from './fake-api';

const SETTINGS: SettingsView = { accounts: [], activeAccountId: null, concurrency: 4, autoSyncMinutes: null, excludeGold: false, bwlimitBytesPerSecond: null, collections: {} };

beforeEach(() => {
  useSettings.setState({ settings: SETTINGS, error: null });
});
afterEach(() => {
  cleanup();
  setRendererApi(null);
});

describe('SettingsCard', () => {
  it('says why a parallel-download count is refused (the shared schema) and saves only a valid one', async () => {
    const api = new FakeRendererApi().handle('settings:update', (patch) => ok({ ...SETTINGS, ...patch }));
    setRendererApi(api);
    render(<SettingsCard />);
    const input = screen.getByLabelText('Parallel downloads') as HTMLInputElement;
    expect([input.min, input.max]).toEqual(['1', '16']);
    for (const [typed, shown] of [['17', 'got 17'], ['0', 'got 0'], ['2.5', 'got 2.5'], ['', 'got nothing']]) {
      fireEvent.change(input, { target: { value: typed } });
      expect(screen.getByRole('alert').textContent).toBe(`Parallel downloads must be an integer from 1 to 16, ${shown}.`);
    }
    expect(api.calls.filter((c) => c.channel === 'settings:update')).toEqual([]);
    fireEvent.change(input, { target: { value: '8' } });
    await waitFor(() => expect(useSettings.getState().settings?.concurrency).toBe(8));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(api.calls.find((c) => c.channel === 'settings:update')?.arg).toEqual({ concurrency: 8 });
  });
});

describe('SettingsCard: bandwidth limit', () => {
  it('takes MiB/s (empty or 0 = no limit), says why a value is refused, and saves bytes per second', async () => {
    const api = new FakeRendererApi().handle('settings:update', (patch) => ok({ ...SETTINGS, ...patch }));
    setRendererApi(api);
    render(<SettingsCard />);
    const input = screen.getByLabelText('Bandwidth limit (MiB/s)') as HTMLInputElement;
    expect(input.value).toBe('');
    for (const [typed, shown] of [
      ['-2', 'Bandwidth limit cannot be negative, got "-2": use empty or 0 for no limit.'],
      ['fast', 'Bandwidth limit must be a number of MiB/s such as 2 or 0.5 (empty or 0 for no limit), got "fast".'],
      ['1,250.5', 'Bandwidth limit must be a number of MiB/s such as 2 or 0.5 (empty or 0 for no limit), got "1,250.5".'],
      ['0.001', 'Bandwidth limit must be from 0.01 to 10240 MiB/s (empty or 0 for no limit), got "0.001".'],
    ]) {
      fireEvent.change(input, { target: { value: typed } });
      expect(screen.getByRole('alert').textContent).toBe(shown);
    }
    expect(api.calls.filter((c) => c.channel === 'settings:update')).toEqual([]);
    fireEvent.change(input, { target: { value: '2,5' } });
    await waitFor(() => expect(useSettings.getState().settings?.bwlimitBytesPerSecond).toBe(2_621_440));
    expect(screen.queryByRole('alert')).toBeNull();
    fireEvent.change(input, { target: { value: '0' } });
    await waitFor(() => expect(useSettings.getState().settings?.bwlimitBytesPerSecond).toBeNull());
    expect(api.calls.filter((c) => c.channel === 'settings:update').map((c) => c.arg)).toEqual([{ bwlimitBytesPerSecond: 2_621_440 }, { bwlimitBytesPerSecond: null }]);
    expect(screen.getByText(/Applies from the next sync/)).toBeTruthy();
  });
});

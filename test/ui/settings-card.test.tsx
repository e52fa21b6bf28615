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

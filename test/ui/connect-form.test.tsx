// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { App } from '../../src-renderer/App';
import { setRendererApi } from '../../src-renderer/api';
import { useConnection } from '../../src-renderer/stores/connection';
import { useNavigation } from '../../src-renderer/stores/navigation';
import { useCollections } from '../../src-renderer/stores/collections';
import { useNotices } from '../../src-renderer/stores/notices';
import { useSync } from '../../src-renderer/stores/sync';
import type { ConnectionInfo, IpcError, SettingsView } from '../../src-shared/ipc-contract';
import { FakeRendererApi, ok } from './fake-api';

const SETTINGS: SettingsView = { accounts: [], activeAccountId: null, concurrency: 4, autoSyncMinutes: null, excludeGold: false, bwlimitBytesPerSecond: null, collections: {} };
const INFO: ConnectionInfo = {
  accountId: 'acct1',
  baseUrl: 'http://127.0.0.1:1234/api/v1/partner',
  client: { id: 1, name: 'Acme Vision Lab', email: 'data@acme.example' },
  apiKey: { name: 'desktop', prefix: 'dsk_ab12', scopes: ['collections:read'] },
  secretStore: 'memory',
  secretStoreWarning: 'The OS keychain is unavailable: the key is kept in memory until you quit.',
};

function fakeWithConnectAnswer(answer: (apiKey: string) => { ok: true; value: ConnectionInfo } | { ok: false; error: IpcError }) {
  return new FakeRendererApi()
    .handle('connection:get', () => ok(null))
    .handle('settings:get', () => ok(SETTINGS))
    .handle('collections:list', () => ok([]))
    .handle('connection:connect', ({ apiKey }) => answer(apiKey))
    .handle('connection:forget', () => ok(null));
}

/** Under a loaded machine a re-render after a few fake round trips can take more than waitFor's default second. */
const SLOW = { timeout: 10_000 };

async function submit(baseUrl: string, apiKey: string) {
  fireEvent.change(await screen.findByLabelText('Base URL'), { target: { value: baseUrl } });
  fireEvent.change(screen.getByLabelText('API key'), { target: { value: apiKey } });
  fireEvent.click(screen.getByRole('button', { name: 'Connect' }));
}

beforeEach(() => {
  useConnection.setState({ status: 'unknown', info: null, error: null, busy: false });
  useNavigation.setState({ workspace: 'delivery', route: { screen: 'collections' } });
  useCollections.getState().reset();
  useNotices.setState({ notices: [] });
});
afterEach(() => {
  cleanup();
  setRendererApi(null);
});

describe('connect form', () => {
  it('keeps the key in a password field', async () => {
    setRendererApi(fakeWithConnectAnswer(() => ok(INFO)));
    render(<App />);
    expect(((await screen.findByLabelText('API key')) as HTMLInputElement).type).toBe('password');
  });

  it.each([
    ['auth', 'The service rejected this API key', 'HTTP 401 from GET /me'],
    ['network', 'Could not reach the service at http://127.0.0.1:9/api/v1/partner', 'connect ECONNREFUSED 127.0.0.1:9'],
    ['base_url', 'The base URL must start with https://', 'Base URL must use https'],
  ] as const)('explains a %s failure and shows main’s detail', async (kind, headline, detail) => {
    setRendererApi(fakeWithConnectAnswer(() => ({ ok: false, error: { kind, message: detail } })));
    render(<App />);
    await submit('http://127.0.0.1:9/api/v1/partner', 'wrong-key');
    const alert = await screen.findByRole('alert');
    expect(alert.dataset.errorKind).toBe(kind);
    expect(alert.textContent).toContain(headline);
    expect(alert.textContent).toContain(detail);
    expect(alert.textContent).not.toContain('wrong-key');
    // The form stays, ready for another attempt; a refused key is emptied (once connect() has
    // returned, a tick after the alert appears), while an address problem keeps the key so fixing
    // the URL is not another paste.
    await waitFor(() => expect((screen.getByLabelText('API key') as HTMLInputElement).value).toBe(kind === 'auth' ? '' : 'wrong-key'));
  });

  it('connects, shows the client in the header, and the account details with the secret store warning', async () => {
    const api = fakeWithConnectAnswer((key) => (key === 'good-key' ? ok(INFO) : { ok: false, error: { kind: 'auth', message: 'no' } }));
    setRendererApi(api);
    render(<App />);
    await submit(INFO.baseUrl, '  good-key  ');
    expect((await screen.findByTestId('header-client-name')).textContent).toBe('Acme Vision Lab');
    expect(api.calls.find((c) => c.channel === 'connection:connect')?.arg).toEqual({ baseUrl: INFO.baseUrl, apiKey: 'good-key' });
    fireEvent.click(screen.getByRole('button', { name: /Signed in as/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Account and key…' }));
    expect(screen.getByText('data@acme.example')).toBeTruthy();
    expect(screen.getByText('dsk_ab12…')).toBeTruthy();
    expect(screen.getByText('collections:read')).toBeTruthy();
    expect(screen.getByText(INFO.secretStoreWarning!)).toBeTruthy();
    // Forgetting asks first; "Keep key" backs out with nothing sent.
    fireEvent.click(screen.getByRole('button', { name: 'Forget key' }));
    expect(screen.getByRole('alertdialog').textContent).toContain('Forget the key of Acme Vision Lab?');
    fireEvent.click(screen.getByRole('button', { name: 'Keep key' }));
    expect(api.calls.some((c) => c.channel === 'connection:forget')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Forget key' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, forget key' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Connect' })).toBeTruthy());
    expect(screen.queryByTestId('header-client-name')).toBeNull();
  });

  it('shows notices as dismissible toasts', async () => {
    const api = fakeWithConnectAnswer(() => ok(INFO));
    setRendererApi(api);
    render(<App />);
    await screen.findByLabelText('API key');
    act(() => api.emit('notice', { level: 'warning', message: 'Set 12 is no longer served.' }));
    expect(screen.getByText('Set 12 is no longer served.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss notice' }));
    expect(screen.queryByText('Set 12 is no longer served.')).toBeNull();
  });

  it('switches between accounts: the other account is connected, or asks for its key with its address filled in', async () => {
    const other = 'https://other.example/api/v1/partner';
    const accounts = [
      { id: 'acct1', baseUrl: INFO.baseUrl, client: { id: 1, name: 'Acme Vision Lab' } },
      { id: 'acct2', baseUrl: other, client: { id: 4, name: 'Beta Labs' } },
    ];
    let active = 'acct1';
    const settings = () => ok({ ...SETTINGS, accounts, activeAccountId: active });
    let keyStored = true;
    const api = fakeWithConnectAnswer(() => ok(INFO))
      .handle('connection:get', () => ok(INFO))
      .handle('settings:get', settings)
      .handle('accounts:switch', ({ accountId }) => {
        active = accountId;
        if (accountId === 'acct1') return ok(INFO);
        return ok(keyStored ? { ...INFO, accountId, baseUrl: other, client: { id: 4, name: 'Beta Labs', email: 'b@beta.example' } } : null);
      });
    setRendererApi(api);
    render(<App />);
    // The header's account menu lists the other accounts, one click away.
    fireEvent.click(await screen.findByRole('button', { name: /Signed in as/ }));
    fireEvent.click(await screen.findByRole('button', { name: 'Beta Labs · other.example' }));
    await waitFor(() => expect(screen.getByTestId('header-client-name').textContent).toBe('Beta Labs'), SLOW);
    expect(api.calls.filter((c) => c.channel === 'collections:list').length).toBeGreaterThan(0);

    // Back to the first (from the account screen's picker), then to the second without a stored key: the connect form, address filled in.
    fireEvent.click(screen.getByRole('button', { name: /Signed in as/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Account and key…' }));
    const picker = (await screen.findByLabelText('Account')) as HTMLSelectElement;
    expect([...picker.options].map((o) => o.textContent)).toEqual(['Acme Vision Lab · 127.0.0.1:1234', 'Beta Labs · other.example']);
    fireEvent.change(picker, { target: { value: 'acct1' } });
    await waitFor(() => expect(screen.getByTestId('header-client-name').textContent).toBe('Acme Vision Lab'), SLOW);
    keyStored = false;
    fireEvent.click(screen.getByRole('button', { name: /Signed in as/ }));
    fireEvent.click(await screen.findByRole('button', { name: 'Beta Labs · other.example' }));
    await waitFor(() => expect((screen.getByLabelText('Base URL') as HTMLInputElement).value).toBe(other), SLOW);
    expect(screen.queryByTestId('header-client-name')).toBeNull();
  });

  it("another account's sync events do not land on this account's collection of the same id", async () => {
    const api = fakeWithConnectAnswer(() => ok(INFO)).handle('connection:get', () => ok(INFO));
    setRendererApi(api);
    render(<App />);
    await screen.findByTestId('header-client-name');
    const events = [{ type: 'warning', message: 'from a sync' } as const];
    act(() => api.emit('sync:events', { accountId: 'someone-else', collectionId: 7, events }));
    expect(useSync.getState().byCollection[7]).toBeUndefined();
    act(() => api.emit('sync:events', { accountId: INFO.accountId, collectionId: 7, events }));
    expect(useSync.getState().byCollection[7]).toBeDefined();
  });
});

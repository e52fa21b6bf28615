import { useEffect, useRef, useState, type FormEvent } from 'react';
import { baseUrlHint } from '../base-url-hint';
import type { IpcErrorKind } from '../../src-shared/ipc-contract';
import { describeConnectError, useConnection } from '../stores/connection';
import { useNavigation } from '../stores/navigation';
import { useSettings } from '../stores/settings';
import type { Account, ConnectionInfo, SecretStoreKind, SettingsView } from '../../src-shared/ipc-contract';

const STORE_NAMES: Record<SecretStoreKind, string> = {
  keychain: 'OS keychain',
  'safe-storage': 'Encrypted app storage (OS-protected)',
  memory: 'Memory only (forgotten when the app quits)',
};

function activeBaseUrl(settings: SettingsView | null): string | null {
  return settings?.accounts.find((a) => a.id === settings.activeAccountId)?.baseUrl ?? null;
}

/** Failures about the address, not the key: the key stays in the field for the next try. */
const ADDRESS_FAILURES: ReadonlySet<IpcErrorKind> = new Set(['network', 'base_url', 'malformed', 'not_found', 'server']);

export function accountLabel(account: Account): string {
  let where = account.baseUrl;
  try {
    const url = new URL(account.baseUrl);
    where = url.host;
  } catch {
    // Shown as stored.
  }
  return `${account.client?.name ?? 'Account not checked yet'} · ${where}`;
}

export function ConnectForm({ replacing }: { replacing: boolean }) {
  const savedBaseUrl = useSettings((s) => activeBaseUrl(s.settings));
  const currentBaseUrl = useConnection((s) => s.info?.baseUrl ?? null);
  const [baseUrl, setBaseUrl] = useState(currentBaseUrl ?? savedBaseUrl ?? 'https://');
  const [edited, setEdited] = useState(false);
  const [apiKey, setApiKey] = useState('');
  const busy = useConnection((s) => s.busy);
  const error = useConnection((s) => s.error);
  const connect = useConnection((s) => s.connect);
  const go = useNavigation((s) => s.go);
  const [attemptedUrl, setAttemptedUrl] = useState('');

  // The active account's address arrives with the settings (or changes with the account picker).
  useEffect(() => {
    if (!edited && !currentBaseUrl && savedBaseUrl) setBaseUrl(savedBaseUrl);
  }, [edited, currentBaseUrl, savedBaseUrl]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setAttemptedUrl(baseUrl.trim());
    const ok = await connect(baseUrl, apiKey);
    // The key leaves the renderer's memory as soon as main holds it, or when it was the key
    // that failed; a wrong address keeps it, so fixing the URL is not another paste.
    const kind = useConnection.getState().error?.kind;
    if (ok || !kind || !ADDRESS_FAILURES.has(kind)) setApiKey('');
    if (ok) go({ screen: 'collections' });
  };
  const hint = baseUrlHint(baseUrl);

  return (
    <form className="card connect-form" onSubmit={submit} aria-labelledby="connect-title">
      <h2 id="connect-title">{replacing ? 'Use a different key' : 'Connect to the delivery service'}</h2>
      {!replacing && <p className="muted">Create an API key on your account&apos;s Data API page. It is shown there once; paste it here. The key is kept in your system&apos;s secret store, never in files.</p>}
      <label className="field">
        <span>Base URL</span>
        <input
          type="url"
          name="baseUrl"
          required
          value={baseUrl}
          onChange={(e) => {
            setEdited(true);
            setBaseUrl(e.target.value);
          }}
          placeholder="https://example.com/api/v1/partner"
          autoComplete="url"
          spellCheck={false}
          aria-describedby={hint ? 'base-url-hint' : undefined}
        />
      </label>
      {hint && (
        <p className="warning base-url-hint" id="base-url-hint" role="status">
          {hint.message}{' '}
          <button
            type="button"
            className="link"
            onClick={() => {
              setEdited(true);
              setBaseUrl(hint.suggestion);
            }}
          >
            Use this address
          </button>
        </p>
      )}
      <label className="field">
        <span>API key</span>
        <input type="password" name="apiKey" required value={apiKey} onChange={(e) => setApiKey(e.target.value)} autoComplete="off" spellCheck={false} />
      </label>
      {error && (
        <div className="error" role="alert" data-error-kind={error.kind}>
          <strong>{describeConnectError(error, attemptedUrl)}</strong>
          <div className="error-detail">{error.message}</div>
        </div>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Connecting…' : 'Connect'}
        </button>
      </div>
    </form>
  );
}

/** What the service says about the connected account and key (never the key itself). */
export function AccountCard() {
  const info = useConnection((s) => s.info);
  if (!info) return null;
  return <AccountDetails info={info} />;
}

function AccountDetails({ info }: { info: ConnectionInfo }) {
  const forget = useConnection((s) => s.forget);
  const busy = useConnection((s) => s.busy);
  const go = useNavigation((s) => s.go);
  const [confirming, setConfirming] = useState(false);
  const keepButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) keepButton.current?.focus();
  }, [confirming]);
  return (
    <section className="card account" aria-labelledby="account-title">
      <h2 id="account-title" tabIndex={-1}>
        Connected account
      </h2>
      <dl className="facts">
        <dt>Client</dt>
        <dd data-testid="client-name">{info.client.name}</dd>
        <dt>E-mail</dt>
        <dd>{info.client.email}</dd>
        <dt>Service</dt>
        <dd className="mono">{info.baseUrl}</dd>
        <dt>Key name</dt>
        <dd>{info.apiKey.name}</dd>
        <dt>Key prefix</dt>
        <dd className="mono">{info.apiKey.prefix}…</dd>
        <dt>Scopes</dt>
        <dd>
          {info.apiKey.scopes.map((s) => (
            <span key={s} className="badge mono">
              {s}
            </span>
          ))}
        </dd>
        <dt>Key stored in</dt>
        <dd>{STORE_NAMES[info.secretStore] ?? info.secretStore}</dd>
      </dl>
      {info.secretStoreWarning && (
        <p className="warning" role="status">
          {info.secretStoreWarning}
        </p>
      )}
      <div className="actions">
        <button type="button" className="primary" onClick={() => go({ screen: 'collections' })}>
          Open collections
        </button>
        {!confirming && (
          <button type="button" className="danger" disabled={busy} onClick={() => setConfirming(true)}>
            Forget key
          </button>
        )}
      </div>
      {confirming && (
        <div className="confirm" role="alertdialog" aria-labelledby="forget-question">
          <p id="forget-question">
            Forget the key of {info.client.name}? Its running syncs stop; folders and history stay, and reconnecting needs the key again.
          </p>
          <div className="actions">
            <button type="button" className="danger" disabled={busy} onClick={() => void forget()}>
              Yes, forget key
            </button>
            <button ref={keepButton} type="button" onClick={() => setConfirming(false)}>
              Keep key
            </button>
          </div>
        </div>
      )}
    </section>
  );
}

/**
 * Every account the app knows (service + client). Dataset folders and history belong to one
 * account, so switching shows that account's collections; without a stored key the connect
 * form asks for it.
 */
export function AccountPicker() {
  const settings = useSettings((s) => s.settings);
  const activeId = useConnection((s) => s.info?.accountId) ?? settings?.activeAccountId ?? '';
  const busy = useConnection((s) => s.busy);
  const switchAccount = useConnection((s) => s.switchAccount);
  const go = useNavigation((s) => s.go);
  if (!settings || settings.accounts.length < 2) return null;
  return (
    <section className="card accounts" aria-labelledby="accounts-title">
      <h2 id="accounts-title">Accounts</h2>
      <label className="field">
        <span>Account</span>
        <select
          value={activeId}
          disabled={busy}
          onChange={(e) => {
            void switchAccount(e.target.value).then(() => go({ screen: 'collections' }));
          }}
        >
          {settings.accounts.map((a) => (
            <option key={a.id} value={a.id}>
              {accountLabel(a)}
            </option>
          ))}
        </select>
      </label>
      <p className="muted">Each account keeps its own dataset folders and sync history.</p>
    </section>
  );
}

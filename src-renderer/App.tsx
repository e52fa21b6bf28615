import { useEffect, useRef } from 'react';
import { subscribe } from './api';
import { useConnection } from './stores/connection';
import { useNavigation, type Workspace } from './stores/navigation';
import { useNotices } from './stores/notices';
import { useSettings, type ThemeChoice } from './stores/settings';
import { useSync } from './stores/sync';
import { AccountCard, AccountPicker, ConnectForm } from './screens/ConnectScreen';
import { CollectionsScreen } from './screens/CollectionsScreen';
import { CollectionScreen } from './screens/CollectionScreen';
import { Toasts } from './components/Toasts';
import { SettingsCard } from './components/SettingsCard';
import { RecruiterWorkspace } from './recruiter/RecruiterWorkspace';
import { HeaderActivity } from './components/Activity';
import { useCollections } from './stores/collections';
import { AccountSwitcher } from './components/AccountSwitcher';
import { useRecruiterConnection } from './recruiter/stores/connection';

/** Syncs of other accounts (auto-sync, or one left running) are not this screen's collections. */
const isActiveAccount = (accountId: string) => useConnection.getState().info?.accountId === accountId;

/** Subscribes once to main's pushes; each goes to the store that owns it. */
function useBridgeEvents() {
  useEffect(() => {
    const off = [
      subscribe('sync:events', ({ accountId, collectionId, events }) => {
        if (isActiveAccount(accountId)) useSync.getState().applyEvents(collectionId, events);
      }),
      subscribe('sync:state', (state) => {
        if (!isActiveAccount(state.accountId)) return;
        const wasRunning = useSync.getState().byCollection[state.collectionId]?.running === true;
        useSync.getState().applyRunState(state);
        // A run ended: the list's "Last sync" line changes, whichever screen is open.
        if (wasRunning && !state.running && useCollections.getState().list !== null) void useCollections.getState().loadList();
      }),
      subscribe('verify:progress', (progress) => {
        if (isActiveAccount(progress.accountId)) useSync.getState().applyVerifyProgress(progress);
      }),
      subscribe('notice', (notice) => {
        // About another account (its auto-sync, one left running): not this window's news.
        if (notice.accountId === undefined || isActiveAccount(notice.accountId)) useNotices.getState().push(notice);
      }),
    ];
    return () => off.forEach((unsubscribe) => unsubscribe());
  }, []);
}

function useThemeAttribute() {
  const theme = useSettings((s) => s.theme);
  useEffect(() => {
    if (theme === 'system') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
  }, [theme]);
}

const NEXT_THEME: Record<ThemeChoice, ThemeChoice> = { system: 'light', light: 'dark', dark: 'system' };
const THEME_NAMES: Record<ThemeChoice, string> = { system: 'System', light: 'Light', dark: 'Dark' };

function ThemeToggle() {
  const theme = useSettings((s) => s.theme);
  const setTheme = useSettings((s) => s.setTheme);
  return (
    <button type="button" className="theme-toggle" onClick={() => setTheme(NEXT_THEME[theme])} aria-label={`Theme: ${THEME_NAMES[theme]}. Switch to ${THEME_NAMES[NEXT_THEME[theme]]}`}>
      Theme: {THEME_NAMES[theme]}
    </button>
  );
}

/** In the Recruiter workspace the header names the organization the recruiter key belongs to, not the delivery client. */
function RecruiterIdentity() {
  const info = useRecruiterConnection((s) => s.info);
  return (
    <span className="account-button" data-testid="header-recruiter-org">
      {info ? (
        <>
          <span className="muted">Recruiting as</span> <strong>{info.organization.name}</strong>
        </>
      ) : (
        <span className="muted">No recruiter key connected</span>
      )}
    </span>
  );
}

const WORKSPACES: Array<{ id: Workspace; label: string }> = [
  { id: 'delivery', label: 'Delivery' },
  { id: 'recruiter', label: 'Recruiter' },
];

function Header() {
  const workspace = useNavigation((s) => s.workspace);
  const setWorkspace = useNavigation((s) => s.setWorkspace);
  const go = useNavigation((s) => s.go);
  const route = useNavigation((s) => s.route);
  const info = useConnection((s) => s.info);
  return (
    <header className="app-header">
      <h1 className="app-title">Dataset Sync</h1>
      {info && (
        <nav aria-label="Workspaces" className="workspaces">
          {WORKSPACES.map((w) => (
            <button
              key={w.id}
              type="button"
              aria-current={workspace === w.id ? 'page' : undefined}
              onClick={() => {
                // Delivery from Settings or the account screen goes back to the collections.
                if (w.id === 'delivery' && workspace === 'delivery' && route.screen === 'account') go({ screen: 'collections' });
                setWorkspace(w.id);
              }}
            >
              {w.label}
            </button>
          ))}
        </nav>
      )}
      <span className="spacer" />
      {info && <HeaderActivity />}
      {info && (workspace === 'recruiter' ? <RecruiterIdentity /> : <AccountSwitcher />)}
      {info && (
        <button
          type="button"
          className="settings-button"
          onClick={() => {
            setWorkspace('delivery');
            go({ screen: 'account', focus: 'settings' });
          }}
        >
          Settings
        </button>
      )}
      <ThemeToggle />
    </header>
  );
}

function DeliveryWorkspace() {
  const route = useNavigation((s) => s.route);
  switch (route.screen) {
    case 'account':
      return <AccountScreen focus={route.focus ?? 'account'} />;
    case 'collection':
      return <CollectionScreen collectionId={route.collectionId} tab={route.tab} />;
    default:
      return <CollectionsScreen />;
  }
}

function AccountScreen({ focus }: { focus: 'account' | 'settings' }) {
  const screen = useRef<HTMLDivElement>(null);
  // The heading of what was asked for: the account card, or the settings.
  useEffect(() => {
    screen.current?.querySelector<HTMLElement>(focus === 'settings' ? '#settings-title' : '#account-title')?.focus();
  }, [focus]);
  return (
        <div className="account-screen" ref={screen}>
          <div className="column">
            <AccountCard />
            <AccountPicker />
          </div>
          <div className="column">
            <ConnectForm replacing />
            <SettingsCard />
          </div>
        </div>
  );
}

export function App() {
  useBridgeEvents();
  useThemeAttribute();
  const status = useConnection((s) => s.status);
  const workspace = useNavigation((s) => s.workspace);
  const loadConnection = useConnection((s) => s.load);
  const loadSettings = useSettings((s) => s.load);

  useEffect(() => {
    void loadConnection();
    void loadSettings();
  }, [loadConnection, loadSettings]);

  let body;
  if (status === 'unknown' || status === 'checking') body = <p className="muted">Checking the connection…</p>;
  else if (status === 'disconnected')
    body = (
      <div className="connect-screen">
        <ConnectForm replacing={false} />
        <AccountPicker />
      </div>
    );
  else body = workspace === 'recruiter' ? <RecruiterWorkspace /> : <DeliveryWorkspace />;

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      {/* The header and the notices under it: notices take their own room, never over a control. */}
      <div className="app-top">
        <Header />
        <Toasts />
      </div>
      <main id="main" tabIndex={-1}>
        {body}
      </main>
    </div>
  );
}

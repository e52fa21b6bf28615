// The header's account menu (where GitHub Desktop keeps its switcher): who is signed in, the
// other known accounts one click away, and the account screen (key, forget, add another).
import { useEffect, useRef, useState } from 'react';
import { useConnection } from '../stores/connection';
import { useNavigation } from '../stores/navigation';
import { useSettings } from '../stores/settings';
import { accountLabel } from '../screens/ConnectScreen';
import type { Account } from '../../src-shared/settings';

/** One empty list: a new [] per render would be a new store answer each time (an update loop). */
const NO_ACCOUNTS: readonly Account[] = [];

export function AccountSwitcher() {
  const info = useConnection((s) => s.info);
  const busy = useConnection((s) => s.busy);
  const switchAccount = useConnection((s) => s.switchAccount);
  const accounts = useSettings((s) => s.settings?.accounts ?? NO_ACCOUNTS);
  const setWorkspace = useNavigation((s) => s.setWorkspace);
  const go = useNavigation((s) => s.go);
  const [open, setOpen] = useState(false);
  const menu = useRef<HTMLDivElement>(null);

  // Closes on a click elsewhere or Escape, as a menu does.
  useEffect(() => {
    if (!open) return;
    const onClick = (e: MouseEvent) => {
      if (!menu.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    document.addEventListener('mousedown', onClick);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onClick);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  if (!info) return null;
  const toAccountScreen = () => {
    setOpen(false);
    setWorkspace('delivery');
    go({ screen: 'account' });
  };
  const others = accounts.filter((a) => a.id !== info.accountId);
  return (
    <div className="account-switcher" ref={menu}>
      <button type="button" className="account-button" aria-expanded={open} aria-haspopup="true" onClick={() => setOpen(!open)} title={`${info.client.email} · key ${info.apiKey.prefix}…`}>
        <span className="muted">Signed in as</span> <strong data-testid="header-client-name">{info.client.name}</strong> <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div className="account-menu" role="group" aria-label="Accounts">
          {others.length > 0 && <p className="muted small">Switch to</p>}
          {others.map((a) => (
            <button
              key={a.id}
              type="button"
              disabled={busy}
              onClick={() => {
                setOpen(false);
                setWorkspace('delivery');
                void switchAccount(a.id).then(() => go({ screen: 'collections' }));
              }}
            >
              {accountLabel(a)}
            </button>
          ))}
          <button type="button" onClick={toAccountScreen}>
            Account and key…
          </button>
          <button type="button" onClick={toAccountScreen}>
            Add another account…
          </button>
        </div>
      )}
    </div>
  );
}

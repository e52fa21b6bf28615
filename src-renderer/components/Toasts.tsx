import { useNotices } from '../stores/notices';

export function Toasts() {
  const notices = useNotices((s) => s.notices);
  const dismiss = useNotices((s) => s.dismiss);
  return (
    <div className="toasts" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className={`toast toast-${n.level}`} role={n.level === 'error' ? 'alert' : 'status'}>
          <span>{n.message}</span>
          <button type="button" className="icon-button" onClick={() => dismiss(n.id)} aria-label="Dismiss notice">
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

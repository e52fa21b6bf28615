// A modal built on the native <dialog>: focus moves into it and stays there, Escape cancels,
// and focus returns to the button that opened it when it closes.
import { useEffect, useRef, type ReactNode } from 'react';

export function Dialog({ title, onCancel, children, describedBy }: { title: string; onCancel: () => void; children: ReactNode; describedBy?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      if (dialog?.open) dialog.close();
      opener?.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className="rc-dialog"
      aria-labelledby="rc-dialog-title"
      aria-describedby={describedBy}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h3 id="rc-dialog-title">{title}</h3>
      {children}
    </dialog>
  );
}

export function ConfirmDialog({ title, message, confirmLabel, onConfirm, onCancel, confirmClass = 'danger', cancelLabel = 'Cancel' }: {
  title: string; message: string; confirmLabel: string; onConfirm: () => void; onCancel: () => void;
  /** What the dismissing button says (Escape does the same). */
  cancelLabel?: string;
  /** 'danger' for what cannot be undone, 'primary' for a weighty but ordinary step. */
  confirmClass?: 'danger' | 'primary';
}) {
  return (
    <Dialog title={title} onCancel={onCancel} describedBy="rc-confirm-message">
      <p id="rc-confirm-message">{message}</p>
      <div className="actions rc-dialog-actions">
        <button type="button" onClick={onCancel} autoFocus>
          {cancelLabel}
        </button>
        <button type="button" className={confirmClass} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}

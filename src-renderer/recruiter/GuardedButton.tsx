// A button that can be unavailable without leaving the page's focus order: because the key
// lacks a scope (it then points at the ScopeNote that says so) or because something runs.
// Both use aria-disabled rather than disabled: a disabled button drops the focus to the page
// body and leaves the tab order, so keyboard users could neither stay put nor learn why.
import type { ButtonHTMLAttributes, ReactNode } from 'react';
import { useMissingScope, type RecruiterScope } from './scopes';

type Props = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type' | 'disabled'> & {
  children: ReactNode;
  type?: 'button' | 'submit';
  /** The scope the action needs, and the id of the ScopeNote explaining its absence. */
  scope?: RecruiterScope;
  noteId?: string;
  /** Unavailable for another reason, e.g. while an action runs or on the last page. */
  unavailable?: boolean;
};

export function GuardedButton({ scope, noteId, unavailable = false, type = 'button', onClick, children, ...rest }: Props) {
  const missing = useMissingScope(scope);
  const blocked = missing !== null || unavailable;
  return (
    <button
      type={type}
      {...rest}
      aria-disabled={blocked || undefined}
      aria-describedby={missing ? noteId : rest['aria-describedby']}
      data-missing-scope={missing ?? undefined}
      onClick={(e) => {
        // Also cancels a form's submission, including the implicit one from Enter in a field.
        if (blocked) e.preventDefault();
        else onClick?.(e);
      }}
    >
      {children}
    </button>
  );
}

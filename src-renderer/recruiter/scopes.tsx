// What the connected recruiter key may do, from the scopes GET /me reported (they arrive with
// the connection info, never the key). Actions a key cannot do stay visible but disabled, with
// the missing scope named, so nobody fills a form the service will refuse.
import type { ButtonHTMLAttributes, ReactNode } from 'react';
import { useRecruiterConnection } from './stores/connection';

export type RecruiterScope = 'jobs:read' | 'jobs:write' | 'data_champs:read';

/** The scope when the connected key lacks it, else null (also null while nothing is connected). */
export function useMissingScope(scope: RecruiterScope): RecruiterScope | null {
  return useRecruiterConnection((s) => (s.info && !s.info.key.scopes.includes(scope) ? scope : null));
}

export const missingScopeText = (scope: RecruiterScope, action: string): string =>
  `This key lacks the ${scope} scope needed to ${action}. Ask the operator for a key that has it.`;

/** The visible reason, referenced by every control it disables (aria-describedby). */
export function ScopeNote({ id, scope, action }: { id: string; scope: RecruiterScope; action: string }) {
  const missing = useMissingScope(scope);
  if (!missing) return null;
  return (
    <p id={id} className="rc-scope-note" data-missing-scope={missing}>
      {missingScopeText(missing, action)}
    </p>
  );
}

type ButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type'> & { children: ReactNode };

/**
 * A button that is unavailable either because the key lacks `scope` (then it points at the
 * ScopeNote `noteId`) or because `unavailable` is set (e.g. while an action runs). Both use
 * aria-disabled rather than disabled: a disabled button drops the focus to the page body and
 * leaves the tab order, so keyboard users could neither stay put nor learn why.
 */
export function GuardedButton({ scope, noteId, unavailable = false, onClick, children, ...rest }: ButtonProps & { scope: RecruiterScope; noteId: string; unavailable?: boolean }) {
  const missing = useMissingScope(scope);
  const blocked = missing !== null || unavailable;
  return (
    <button
      type="button"
      {...rest}
      aria-disabled={blocked || undefined}
      aria-describedby={missing ? noteId : rest['aria-describedby']}
      data-missing-scope={missing ?? undefined}
      onClick={(e) => {
        if (blocked) e.preventDefault();
        else onClick?.(e);
      }}
    >
      {children}
    </button>
  );
}

// What the connected recruiter key may do, from the scopes GET /me reported (they arrive with
// the connection info, never the key). Actions a key cannot do stay visible but disabled, with
// the missing scope named, so nobody fills a form the service will refuse.
import { useRecruiterConnection } from './stores/connection';

export type RecruiterScope = 'jobs:read' | 'jobs:write' | 'data_champs:read';

/** The scope when the connected key lacks it, else null (also null for none, or while nothing is connected). */
export function useMissingScope(scope: RecruiterScope | undefined): RecruiterScope | null {
  return useRecruiterConnection((s) => (scope && s.info && !s.info.key.scopes.includes(scope) ? scope : null));
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

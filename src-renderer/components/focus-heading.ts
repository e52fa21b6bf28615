import { useEffect, type RefObject } from 'react';

/**
 * Opening a screen moves focus to its heading (tabIndex -1), so keyboard and screen-reader
 * users start where the new content starts instead of on the button that led there.
 */
export function useFocusHeading(ref: RefObject<HTMLElement | null>, key: unknown = null): void {
  useEffect(() => {
    ref.current?.focus();
  }, [ref, key]);
}

// Where keyboard focus goes in the recruiter workspace: a newly opened screen puts it on its
// heading (so screen readers announce where people are), and an action leaves it on the
// control that started it, or on a stand-in when the action removed that control.
import { useCallback, useRef } from 'react';

/**
 * A ref for a screen's heading (give it tabIndex={-1}): focused once, when it first appears.
 * A callback ref, because some headings appear only after their data has loaded.
 */
export function useFocusOnAppear<T extends HTMLElement>(): (element: T | null) => void {
  const done = useRef(false);
  return useCallback((element: T | null) => {
    if (!element || done.current) return;
    done.current = true;
    element.focus({ preventScroll: true });
  }, []);
}

/** Lets the store's update render (zustand renders synchronously, React may defer a task). */
const afterRender = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Runs an action started from `start` (usually event.currentTarget) and then, if focus was
 * lost on the way (the control went away and focus fell to the page body), puts it on `start`
 * if it is still on the page, else on the first of `standIns` that is. Focus people moved
 * elsewhere meanwhile stays where they put it.
 */
export async function keepingFocus<T>(start: HTMLElement | null, action: () => Promise<T>, standIns: () => Array<HTMLElement | null | undefined>): Promise<T> {
  const result = await action();
  await afterRender();
  const current = document.activeElement;
  const lost = current === null || current === document.body || current === start;
  const target = [start, ...standIns()].find((el): el is HTMLElement => Boolean(el?.isConnected));
  if (lost && target && current !== target) target.focus();
  return result;
}

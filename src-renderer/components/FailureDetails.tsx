import { useEffect, useRef, useState } from 'react';
import type { FileRow } from '../stores/sync-view';
import { explainRow, failedRowText, failureReport } from '../failure-words';

/** A failed row's state as a disclosure button: it unfolds the reason below the row. */
export function FailureToggle({ row, open, controls, onToggle }: { row: FileRow; open: boolean; controls: string; onToggle: () => void }) {
  return (
    <button type="button" className="failure-toggle state state-failed" aria-expanded={open} aria-controls={controls} onClick={onToggle}>
      <span className="chevron" aria-hidden="true">
        {open ? '▾' : '▸'}
      </span>
      {failedRowText(row)}
    </button>
  );
}

type CopyState = 'idle' | 'copied' | 'failed';

/** What happened and what to do, the engine's reason (shortened, no key), and a Copy button. */
export function FailureDetails({ row, id }: { row: FileRow; id: string }) {
  const failure = explainRow(row);
  const [copy, setCopy] = useState<CopyState>('idle');
  const detailRef = useRef<HTMLParagraphElement>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const onCopy = async () => {
    try {
      await navigator.clipboard.writeText(failureReport(row.path, failure));
      if (mounted.current) setCopy('copied');
    } catch {
      // No clipboard access: select the details so they can be copied by hand.
      if (mounted.current) setCopy('failed');
      const node = detailRef.current;
      const selection = window.getSelection();
      if (node && selection) selection.selectAllChildren(node);
    }
  };

  return (
    <div role="cell" id={id} className="failure-details" aria-colspan={4} data-testid="failure-details">
      <p className="failure-plain">{failure.explanation}</p>
      <p ref={detailRef} className="failure-detail mono small">
        Details: {failure.detail}
      </p>
      <div className="failure-actions">
        <button type="button" onClick={() => void onCopy()}>
          Copy
        </button>
        <span role="status" className="muted small">
          {copy === 'copied' ? 'Copied to the clipboard.' : copy === 'failed' ? 'Could not reach the clipboard: the details are selected, copy them with the keyboard.' : ''}
        </span>
      </div>
    </div>
  );
}

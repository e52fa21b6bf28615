// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { VerifyReportView } from '../../src-renderer/components/VerifyReportView';
import type { VerifyReport } from '../../src-shared/sync-events';

afterEach(cleanup);

const report = (over: Partial<VerifyReport>): VerifyReport => ({ dest: '/data', filesChecked: 10, ok: 10, missing: [], changed: [], extra: [], bytesHashed: 1024, ...over });

describe('VerifyReportView', () => {
  it('offers to repair the missing and changed files, and says extra files are kept', () => {
    const onRepair = vi.fn();
    render(<VerifyReportView report={report({ ok: 8, missing: ['sets/1/a.mp4'], changed: ['sets/2/b.mp4'], extra: ['sets/2/notes.txt'] })} onRepair={onRepair} />);
    fireEvent.click(screen.getByRole('button', { name: 'Repair 2 files' }));
    expect(onRepair).toHaveBeenCalledOnce();
    expect(screen.getByText('Extra files are kept.')).toBeTruthy();
  });

  it('offers no repair for an intact dataset or one with only extra files, and disables it while a sync runs', () => {
    const { rerender } = render(<VerifyReportView report={report({})} onRepair={() => undefined} />);
    expect(screen.queryByRole('button')).toBeNull();
    rerender(<VerifyReportView report={report({ extra: ['x'] })} onRepair={() => undefined} />);
    expect(screen.queryByRole('button')).toBeNull();
    rerender(<VerifyReportView report={report({ ok: 9, missing: ['sets/1/a.mp4'] })} />);
    expect((screen.getByRole('button', { name: 'Repair 1 file' }) as HTMLButtonElement).disabled).toBe(true);
  });
});

// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { QuotaBars } from '../../src-renderer/components/QuotaBars';
import type { Quota } from '../../src-shared/delivery-api';

afterEach(cleanup);

const quota = (over: Partial<Quota>): Quota => ({ group: 'gender', value: 'female', label: 'Female', target: 20, accepted: 12, reserved: 3, available: 5, status: 'open', ...over });

describe('QuotaBars', () => {
  it('shows accepted, reserved and available of target as numbers and as an accessible bar', () => {
    render(<QuotaBars quotas={[quota({}), quota({ value: 'male', label: 'Male', accepted: 0, reserved: 0, available: 20 })]} />);
    const bar = screen.getByRole('progressbar', { name: 'Female' });
    expect(bar.getAttribute('aria-valuenow')).toBe('12');
    expect(bar.getAttribute('aria-valuemax')).toBe('20');
    expect(bar.getAttribute('aria-valuetext')).toBe('12 accepted, 3 reserved, 5 available of 20');
    const segments = bar.querySelectorAll<HTMLElement>('span');
    expect(segments[0]?.style.width).toBe('60%');
    expect(segments[1]?.style.width).toBe('15%');
    const male = screen.getByRole('progressbar', { name: 'Male' });
    expect(male.getAttribute('aria-valuetext')).toBe('0 accepted, 0 reserved, 20 available of 20');
    expect(screen.getAllByText(/available/).length).toBeGreaterThanOrEqual(2);
  });

  it('scales an over-filled group so its segments never exceed the bar', () => {
    render(<QuotaBars quotas={[quota({ target: 10, accepted: 12, reserved: 3, available: 0, status: 'full' })]} />);
    const bar = screen.getByRole('progressbar', { name: 'Female' });
    const widths = [...bar.querySelectorAll<HTMLElement>('span')].map((s) => parseFloat(s.style.width));
    expect(widths[0]! + widths[1]!).toBeCloseTo(100);
    expect(bar.getAttribute('aria-valuenow')).toBe('10');
    expect(screen.getByText('full')).toBeTruthy();
  });

  it('says so when there are no quotas', () => {
    render(<QuotaBars quotas={[]} />);
    expect(screen.getByText('This collection has no quotas.')).toBeTruthy();
  });
});

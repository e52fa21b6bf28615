// The recruiter UI's rules: which job moves and application actions are offered, the job
// form's own checks, and how the service's 422 field errors are placed on the form.
import { describe, expect, it } from 'vitest';
import { changedFields, checkDraft, EMPTY_DRAFT, legalApplicationActions, legalJobMoves, placeFieldErrors, toJobInput } from '../../src-renderer/recruiter/rules';

describe('recruiter rules', () => {
  it('offers job moves only where the service allows them', () => {
    expect(legalJobMoves('draft')).toEqual(['publish', 'close']);
    expect(legalJobMoves('active')).toEqual(['pause', 'close']);
    expect(legalJobMoves('paused')).toEqual(['resume', 'close']);
    expect(legalJobMoves('closed')).toEqual([]);
    expect(legalJobMoves('archived')).toEqual(['close']);
  });

  it('offers application actions by status, and none on a closed job', () => {
    expect(legalApplicationActions('pending', 'active')).toEqual(['shortlist', 'hire', 'reject']);
    expect(legalApplicationActions('shortlisted', 'paused')).toEqual(['hire', 'unshortlist', 'reject']);
    expect(legalApplicationActions('hired', 'active')).toEqual(['reject']);
    expect(legalApplicationActions('work_submitted', 'active')).toEqual(['approveWork']);
    expect(legalApplicationActions('rejected', 'active')).toEqual([]);
    expect(legalApplicationActions('work_approved', 'active')).toEqual([]);
    expect(legalApplicationActions('pending', 'closed')).toEqual([]);
  });

  it('checks the draft: required fields and obvious formats', () => {
    expect(Object.keys(checkDraft(EMPTY_DRAFT)).sort()).toEqual(['description', 'rate', 'title']);
    const good = { ...EMPTY_DRAFT, title: 'T', description: 'D', rate: '12.5', number_of_positions: '2', required_skills: 'survey, smart_phone' };
    expect(checkDraft(good)).toEqual({});
    expect(checkDraft({ ...good, rate: '0' }).rate).toBeDefined();
    expect(checkDraft({ ...good, currency: 'EURO' }).currency).toBeDefined();
    expect(checkDraft({ ...good, number_of_positions: '1.5' }).number_of_positions).toBeDefined();
    expect(checkDraft({ ...good, required_skills: 'data entry' }).required_skills).toContain('data entry');
    expect(toJobInput({ ...good, currency: 'usd', required_skills: ' Survey , ,x ' })).toMatchObject({ currency: 'USD', number_of_positions: 2, required_skills: ['survey', 'x'] });
  });

  it('sends only changed fields on edit', () => {
    const before = { ...EMPTY_DRAFT, title: 'A', description: 'D', rate: '10' };
    expect(changedFields(before, { ...before })).toEqual({});
    expect(changedFields(before, { ...before, title: 'B', required_skills: 'x' })).toEqual({ title: 'B', required_skills: ['x'] });
  });

  it('places service field errors on the form, the rest apart', () => {
    const placed = placeFieldErrors({ title: ['must be a non-empty string'], state: ['job is closed'], base: ['refused'] });
    expect(placed.byField).toEqual({ title: 'must be a non-empty string' });
    expect(placed.other).toEqual(['State: job is closed', 'refused']);
  });
});

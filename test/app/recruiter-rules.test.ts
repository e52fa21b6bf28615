// The recruiter UI's rules: which job moves and application actions are offered, the job
// form's own checks, and how the service's 422 field errors are placed on the form.
import { describe, expect, it } from 'vitest';
import { changedFields, checkDraft, EMPTY_DRAFT, legalApplicationActions, legalJobMoves, parseAmount, parseRate, placeFieldErrors, toJobInput } from '../../src-renderer/recruiter/rules';

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

  // The service's rules (src-service/recruiter/validation.ts), met in the form before a round trip.
  it('applies the service limits: title, description, positions, skills, rate digits', () => {
    const good = { ...EMPTY_DRAFT, title: 'T', description: 'D', rate: '150', number_of_positions: '1000' };
    expect(checkDraft(good)).toEqual({});
    expect(checkDraft({ ...good, title: `  ${'x'.repeat(200)}  ` })).toEqual({});
    expect(checkDraft({ ...good, title: 'x'.repeat(201) }).title).toBe('Keep the title to 200 characters or fewer (it has 201).');
    expect(checkDraft({ ...good, description: 'd'.repeat(10_001) }).description).toContain('10000 characters or fewer');
    expect(checkDraft({ ...good, number_of_positions: '1001' }).number_of_positions).toBe('Enter a whole number from 1 to 1000.');
    expect(checkDraft({ ...good, number_of_positions: '0' }).number_of_positions).toBe('Enter a whole number from 1 to 1000.');
    const skills = Array.from({ length: 51 }, (_, i) => `s${i}`).join(',');
    expect(checkDraft({ ...good, required_skills: skills }).required_skills).toBe('List at most 50 skills.');
    expect(checkDraft({ ...good, required_skills: `${skills},S0` }).required_skills).toBe('List at most 50 skills.');
    expect(checkDraft({ ...good, required_skills: 'a'.repeat(51) }).required_skills).toContain('is not a skill identifier');
    expect(checkDraft({ ...good, rate: '1234567890' }).rate).toBe('Use at most 9 digits before the decimal point.');
    expect(checkDraft({ ...good, rate: '000000000150' })).toEqual({});
    expect(toJobInput({ ...good, rate: '000000000150' }).rate).toBe('150');
  });

  it('reads a decimal comma and refuses thousands separators with the reason', () => {
    expect(parseAmount('12,50')).toEqual({ ok: true, value: '12.50' });
    expect(parseAmount(' 12.5 ')).toEqual({ ok: true, value: '12.5' });
    expect(parseAmount('140')).toEqual({ ok: true, value: '140' });
    expect(parseAmount('1,250')).toEqual({ ok: false, error: '"1,250" is ambiguous: write 1250 for thousands (no separators), or 1.25 for decimals.' });
    expect(parseAmount('1.250,00')).toEqual({ ok: false, error: 'Write the amount without thousands separators, e.g. 1250.50 or 1250,50.' });
    expect(parseAmount("1'250")).toEqual({ ok: false, error: 'Write the amount without thousands separators, e.g. 1250.50 or 1250,50.' });
    expect(parseAmount('12 €')).toEqual({ ok: false, error: 'Enter an amount in digits, e.g. 150.00 or 150,00.' });
    expect(parseAmount('-3')).toMatchObject({ ok: false });
    expect(parseRate('12,505')).toMatchObject({ ok: false, error: expect.stringContaining('ambiguous') });
    expect(parseRate('12.505')).toEqual({ ok: false, error: 'Use at most 2 decimals, e.g. 12.50.' });
    expect(parseRate('0,00')).toEqual({ ok: false, error: 'The rate must be greater than 0.' });
    expect(toJobInput({ ...EMPTY_DRAFT, title: 'T', description: 'D', rate: '12,50' }).rate).toBe('12.50');
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

// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { countryName } from '../../src-renderer/recruiter/country';
import { closeSkills, unknownSkills } from '../../src-renderer/recruiter/known-skills';
import { rateAboveJob } from '../../src-renderer/recruiter/ApplicationsTable';
import type { Application, JobDetail } from '../../src-shared/recruiter-api';

describe('recruiter hints', () => {
  it('turns an ISO country code into its name, and leaves names as typed', () => {
    expect(countryName(' DE ')).toBe('Germany');
    expect(countryName('fr')).toBe('France');
    expect(countryName('Germany')).toBe('Germany');
    expect(countryName('ZZ')).toBe('ZZ');
  });

  it('says which typed skills the service does not use, and the known ones they resemble', () => {
    const known = ['photography', 'survey', 'video_recording', 'voice_recording'];
    expect(unknownSkills(['survey', 'video'], known)).toEqual(['video']);
    expect(closeSkills('video', known)).toEqual(['video_recording']);
    expect(unknownSkills(['anything'], [])).toEqual([]);
  });

  it('warns before hiring a Data Champ whose daily rate is above the job\'s', () => {
    const job = { rate: '150.00', rate_type: 'daily', currency: 'EUR' } as unknown as JobDetail;
    const asking = (daily_rate: string) => ({ data_champ: { daily_rate, currency: 'EUR' } }) as unknown as Application;
    expect(rateAboveJob(asking('335.00'), job)).toMatch(/^Their daily rate \(.*335.*\) is above this job's \(.*150.*\)\.$/);
    expect(rateAboveJob(asking('150.00'), job)).toBeNull();
    expect(rateAboveJob(asking('335.00'), { ...job, rate_type: 'fixed' } as JobDetail)).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { baseUrlHint } from '../../src-renderer/base-url-hint';

describe('base URL hint', () => {
  it('accepts a delivery address, with or without a trailing slash', () => {
    expect(baseUrlHint('https://data.example.com/api/v1/partner')).toBeNull();
    expect(baseUrlHint('http://127.0.0.1:8080/api/v1/partner/')).toBeNull();
  });

  it('says nothing about what is not a URL yet', () => {
    expect(baseUrlHint('https://')).toBeNull();
    expect(baseUrlHint('data.example.com')).toBeNull();
  });

  it('recognises a bare host and suggests the partner path', () => {
    expect(baseUrlHint('https://data.example.com')).toEqual({
      message: 'Delivery addresses end in /api/v1/partner. Did you mean https://data.example.com/api/v1/partner?',
      suggestion: 'https://data.example.com/api/v1/partner',
    });
    expect(baseUrlHint('https://data.example.com/api/v1/')?.suggestion).toBe('https://data.example.com/api/v1/partner');
  });

  it('recognises the recruiter API address and names the delivery one', () => {
    expect(baseUrlHint('https://data.example.com/api/v1/recruiter')).toEqual({
      message: "This is the recruiter API's address. The delivery service is at https://data.example.com/api/v1/partner.",
      suggestion: 'https://data.example.com/api/v1/partner',
    });
  });
});

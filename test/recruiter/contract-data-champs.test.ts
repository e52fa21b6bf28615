// Data Champs: every search filter, pagination, profiles and matches for a job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecruiterServer, type RecruiterTestService } from './recruiter-server';
import { client } from './http';

interface Champ {
  id: number;
  name: string;
  skills: string[];
  city: string;
  region: string;
  country: string;
  availability: string;
  daily_rate: string;
  verified: boolean;
}

let svc: RecruiterTestService;
let api: ReturnType<typeof client>;
let everyone: Champ[];

/** Every Data Champ matching the query, walking all pages of 100. */
async function searchAll(query: string): Promise<Champ[]> {
  const out: Champ[] = [];
  for (let page = 1; ; page++) {
    const res = await api('GET', `/data-champs?per_page=100&page=${page}${query ? `&${query}` : ''}`);
    expect(res.status, query).toBe(200);
    out.push(...(res.body.data_champs as Champ[]));
    if (!res.body.has_more) {
      expect(res.body.total).toBe(out.length);
      return out;
    }
  }
}

const ids = (list: Champ[]) => list.map((c) => c.id);

beforeAll(async () => {
  svc = await startRecruiterServer();
  api = client(svc.baseUrl, svc.keyOf('discovery'));
  everyone = await searchAll('');
});
afterAll(async () => {
  await svc.close();
});

describe('GET /data-champs pagination', () => {
  it('defaults to page 1 of 25 with total and has_more', async () => {
    const res = await api('GET', '/data-champs');
    expect(res.body).toMatchObject({ page: 1, per_page: 25, total: 200, has_more: true });
    expect(ids(res.body.data_champs)).toEqual(ids(everyone.slice(0, 25)));
  });

  it('walks pages without gaps or repeats and ends with has_more false', async () => {
    const last = await api('GET', '/data-champs?page=8');
    expect(last.body).toMatchObject({ page: 8, per_page: 25, has_more: false });
    expect(ids(last.body.data_champs)).toEqual(ids(everyone.slice(175, 200)));
    const odd = await api('GET', '/data-champs?page=3&per_page=30');
    expect(ids(odd.body.data_champs)).toEqual(ids(everyone.slice(60, 90)));
    expect(odd.body.has_more).toBe(true);
    expect((await api('GET', '/data-champs?page=9')).body).toMatchObject({ data_champs: [], has_more: false, total: 200 });
    expect(new Set(ids(everyone)).size).toBe(200);
  });

  it('refuses per_page above 100 and other bad paging values', async () => {
    for (const q of ['per_page=101', 'per_page=0', 'page=0', 'page=-1', 'page=x', 'per_page=2.5']) {
      const res = await api('GET', `/data-champs?${q}`);
      expect(res.status, q).toBe(422);
      expect(Object.keys(res.body.errors), q).toEqual([q.split('=')[0]]);
    }
  });
});

describe('GET /data-champs filters', () => {
  const fold = (s: string) => s.toLowerCase();
  const cases: Array<[string, (c: Champ) => boolean]> = [
    ['skills=survey', (c) => c.skills.includes('survey')],
    ['skills=survey,smartphone', (c) => c.skills.includes('survey') && c.skills.includes('smartphone')],
    ['skills=Survey,%20Photography', (c) => c.skills.includes('survey') && c.skills.includes('photography')],
    ['location=berlin', (c) => c.city === 'Berlin' || c.region === 'Berlin'],
    ['location=BAVARIA', (c) => c.region === 'Bavaria'],
    ['location=Munich', (c) => c.city === 'Munich'],
    ['country=kenya', (c) => c.country === 'Kenya'],
    ['country=United%20Kingdom', (c) => c.country === 'United Kingdom'],
    ['availability=available', (c) => c.availability === 'available'],
    ['availability=busy', (c) => c.availability === 'busy'],
    ['availability=unavailable', (c) => c.availability === 'unavailable'],
    ['min_rate=200', (c) => Number(c.daily_rate) >= 200],
    ['max_rate=100.5', (c) => Number(c.daily_rate) <= 100.5],
    ['min_rate=100&max_rate=150', (c) => Number(c.daily_rate) >= 100 && Number(c.daily_rate) <= 150],
    ['verified_only=true', (c) => c.verified],
    ['verified_only=1', (c) => c.verified],
    ['verified_only=false', () => true],
    ['search=ana', (c) => fold(c.name).includes('ana')],
    ['search=OKAFOR', (c) => fold(c.name).includes('okafor')],
    ['skills=survey&country=germany&availability=available&verified_only=true&max_rate=300',
      (c) => c.skills.includes('survey') && c.country === 'Germany' && c.availability === 'available' && c.verified && Number(c.daily_rate) <= 300],
  ];

  it.each(cases)('%s returns exactly the matching Data Champs', async (query, predicate) => {
    const expected = everyone.filter(predicate);
    expect(expected.length, 'the demo data should make this filter meaningful').toBeGreaterThan(0);
    if (query !== 'verified_only=false') expect(expected.length).toBeLessThan(everyone.length);
    expect(ids(await searchAll(query))).toEqual(ids(expected));
  });

  it('returns an empty page for filters nothing matches', async () => {
    const res = await api('GET', '/data-champs?search=zzzz-nobody');
    expect(res.body).toMatchObject({ data_champs: [], total: 0, has_more: false, page: 1 });
  });

  it('refuses bad filter values with 422 naming each parameter', async () => {
    for (const [q, fields] of [
      ['availability=sometimes', ['availability']],
      ['min_rate=cheap', ['min_rate']],
      ['max_rate=-5', ['max_rate']],
      ['min_rate=200&max_rate=100', ['max_rate']],
      ['verified_only=yes', ['verified_only']],
      ['availability=x&min_rate=y&per_page=500', ['availability', 'min_rate', 'per_page']],
    ] as const) {
      const res = await api('GET', `/data-champs?${q}`);
      expect(res.status, q).toBe(422);
      expect(res.body.error).toBe('validation failed');
      expect(Object.keys(res.body.errors).sort(), q).toEqual([...fields].sort());
    }
  });

  it('publishes public fields only: no email or phone', () => {
    for (const c of everyone) {
      expect(c).not.toHaveProperty('email');
      expect(c).not.toHaveProperty('phone');
    }
  });
});

describe('GET /data-champs/:id', () => {
  it('returns the public profile', async () => {
    const target = everyone[41]!;
    const res = await api('GET', `/data-champs/${target.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data_champ).toEqual(target);
  });
});

describe('GET /jobs/:job_id/data-champs/matches', () => {
  it('ranks by score, explains each score, and respects required skills, applicants and limit', async () => {
    const full = client(svc.baseUrl, svc.keyOf('full'));
    const job = (await full('GET', '/jobs/1')).body.job;
    const res = await full('GET', `/jobs/${job.id}/data-champs/matches?limit=50`);
    expect(res.status).toBe(200);
    const matches = res.body.matches as Array<{ data_champ: Champ; score: number; reasons: string[] }>;
    expect(matches).toHaveLength(50);
    const applicants = new Set(job.applications.map((a: { data_champ_id: number }) => a.data_champ_id));
    for (let i = 0; i < matches.length; i++) {
      const m = matches[i]!;
      expect(m.score).toBeGreaterThan(0);
      expect(m.score).toBeLessThanOrEqual(100);
      if (i > 0) expect(m.score).toBeLessThanOrEqual(matches[i - 1]!.score);
      expect(m.reasons.length).toBeGreaterThan(0);
      expect(m.data_champ.skills.some((s) => job.required_skills.includes(s))).toBe(true);
      expect(applicants.has(m.data_champ.id)).toBe(false);
      expect(m.data_champ).not.toHaveProperty('email');
    }
    // The best match holds every required skill, fits the rate, is available and verified.
    const best = matches[0]!;
    expect(best.score).toBe(100);
    expect(job.required_skills.every((s: string) => best.data_champ.skills.includes(s))).toBe(true);
    expect(Number(best.data_champ.daily_rate)).toBeLessThanOrEqual(Number(job.rate));
    expect(best.data_champ).toMatchObject({ availability: 'available', verified: true });
    // A candidate with fewer shared skills, all else equal, ranks below one with more.
    const partial = matches.find((m) => !job.required_skills.every((s: string) => m.data_champ.skills.includes(s)));
    if (partial) expect(partial.score).toBeLessThan(best.score);

    const top3 = await full('GET', `/jobs/${job.id}/data-champs/matches`);
    expect(top3.body.matches).toHaveLength(10);
    expect(top3.body.matches.map((m: { data_champ: Champ }) => m.data_champ.id)).toEqual(matches.slice(0, 10).map((m) => m.data_champ.id));
    expect((await full('GET', `/jobs/${job.id}/data-champs/matches?limit=0`)).status).toBe(422);
  });

  it('scores skill overlap, rate, availability and verification as documented', async () => {
    const full = client(svc.baseUrl, svc.keyOf('full'));
    const skills = ['survey', 'photography', 'driving'];
    const created = await full('POST', '/jobs', {
      title: 'Scoring probe', description: 'd', job_type: 'survey', location_type: 'remote',
      rate: '15.00', rate_type: 'hourly', currency: 'EUR', number_of_positions: 1, required_skills: skills,
    });
    const jobId = created.body.job.id as number;
    // documented formula: 50 * shared/required + 20 if daily rate <= 8 h * hourly rate + availability + 10 if verified
    const expected = everyone
      .map((c) => {
        const shared = skills.filter((s) => c.skills.includes(s)).length;
        const availability = c.availability === 'available' ? 20 : c.availability === 'busy' ? 8 : 0;
        const score = Math.round((50 * shared) / skills.length) + (Number(c.daily_rate) <= 120 ? 20 : 0) + availability + (c.verified ? 10 : 0);
        return { id: c.id, shared, score };
      })
      .filter((m) => m.shared > 0)
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, 50);
    const res = await full('GET', `/jobs/${jobId}/data-champs/matches?limit=50`);
    expect(res.body.matches.map((m: { data_champ: Champ; score: number }) => ({ id: m.data_champ.id, score: m.score })))
      .toEqual(expected.map(({ id, score }) => ({ id, score })));
    for (const m of res.body.matches as Array<{ data_champ: Champ; reasons: string[] }>) {
      expect(m.reasons.includes('verified')).toBe(m.data_champ.verified);
      expect(m.reasons.includes('available now')).toBe(m.data_champ.availability === 'available');
    }
  });

  it('answers for the caller\'s own job only: 403 for other organizations\' jobs, 404 for none', async () => {
    const scouts = client(svc.baseUrl, svc.keyOf('discovery'));
    const statuses: number[] = [];
    for (let id = 1; id <= 11; id++) statuses.push((await scouts('GET', `/jobs/${id}/data-champs/matches`)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 403)).toHaveLength(10);
    expect((await scouts('GET', '/jobs/9999/data-champs/matches')).status).toBe(404);
  });
});

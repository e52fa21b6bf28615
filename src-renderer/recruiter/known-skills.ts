// The skill identifiers this service is known to use: the API has no skill catalogue, so they
// are gathered from what it answers: the organization's jobs (100 most recent) and Data Champs'
// profiles (the first 100 found, when the key may search them). Asked once per connection.
import { useEffect, useState } from 'react';
import { invoke } from '../api';
import { useRecruiterConnection } from './stores/connection';

let cache: { key: string; skills: Promise<string[]> } | null = null;

async function gather(canSearchChamps: boolean): Promise<string[]> {
  const found = new Set<string>();
  const [jobs, champs] = await Promise.all([
    invoke('recruiter:jobs:list', { page: 1, perPage: 100 }),
    canSearchChamps ? invoke('recruiter:champs:search', { page: 1, perPage: 100 }) : Promise.resolve(null),
  ]);
  if (jobs.ok) for (const job of jobs.value.jobs) for (const s of job.required_skills ?? []) found.add(s.toLowerCase());
  if (champs?.ok) for (const champ of champs.value.data_champs) for (const s of champ.skills ?? []) found.add(s.toLowerCase());
  return [...found].sort();
}

/** Known skill identifiers, sorted; empty until they are read. */
export function useKnownSkills(): string[] {
  const info = useRecruiterConnection((s) => s.info);
  const [skills, setSkills] = useState<string[]>([]);
  useEffect(() => {
    if (!info) return;
    const key = `${info.organization.name}/${info.key.prefix ?? ''}`;
    if (cache?.key !== key) cache = { key, skills: gather(info.key.scopes.includes('data_champs:read')) };
    let live = true;
    void cache.skills.then((s) => live && setSkills(s));
    return () => {
      live = false;
    };
  }, [info]);
  return skills;
}

/** The typed skills that are not among the known ones (nothing is unknown while none are known). */
export function unknownSkills(typed: readonly string[], known: readonly string[]): string[] {
  if (known.length === 0) return [];
  const set = new Set(known);
  return typed.filter((s) => !set.has(s.toLowerCase()));
}

/** Known identifiers close to `skill` ("video" -> "video_recording"): sharing a word or a prefix. */
export function closeSkills(skill: string, known: readonly string[]): string[] {
  const s = skill.toLowerCase();
  return known.filter((k) => k.includes(s) || s.includes(k) || k.split(/[_-]/).some((part) => part.length > 2 && s.split(/[_-]/).includes(part))).slice(0, 3);
}

// Test helper: the whole reference service (src-service/index.ts) on a free loopback port,
// with the smallest delivery data, so recruiter tests go through the real mount under
// /api/v1/recruiter, the same way the app and the `demo` command do.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceService, type AdminClient } from '../../src-service/index';

export interface RecruiterTestService {
  baseUrl: string;
  admin: AdminClient;
  organizations: Array<{ name: string; apiKey: string; scopes: string[] }>;
  /** Key of the named demo organization (see src-service/recruiter/demo-data.ts). */
  keyOf(name: DemoOrg): string;
  close(): Promise<void>;
}

export type DemoOrg = 'full' | 'readOnly' | 'discovery' | 'otherFull';
const ORG_NAMES: Record<DemoOrg, string> = {
  full: 'Acme Field Research',
  readOnly: 'Readonly Recruiting',
  discovery: 'Talent Scouts',
  otherFull: 'Globex Staffing',
};

export async function startRecruiterServer(seed = 7): Promise<RecruiterTestService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'recruiter-test-'));
  const service = await startReferenceService({ seed, sets: 1, slots: 1, fileSize: 1024, dataDir });
  return {
    baseUrl: service.recruiterBaseUrl,
    admin: service.admin,
    organizations: service.organizations,
    keyOf(name) {
      const org = service.organizations.find((o) => o.name === ORG_NAMES[name]);
      if (!org) throw new Error(`demo organization ${name} missing`);
      return org.apiKey;
    },
    async close() {
      await service.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

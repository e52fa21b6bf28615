// A consent record as a step of its set: fetched from the service and written into the consents
// destination unless it is stored there already. Asked in the consents' own pool (sync-pools.ts),
// so the walk never waits on the consents folder; a consent that fails fails its set
// (set-outcome.ts). Apart from the plan (set-plan.ts), which only queues it.
import { ApiError } from '../api/errors';
import type { ConsentRef } from '../../src-shared/delivery-api';
import { consentStored, writeConsent } from './consents';
import { localFsError } from './local-errors';
import { failureCode } from './failure-code';
import { withRetry } from './retry';
import type { RunContext } from './run-context';
import { stepDone, type SetProgress } from './set-outcome';

export async function consentTask(ctx: RunContext, sp: SetProgress, ref: ConsentRef): Promise<void> {
  try {
    if (ctx.signal.aborted) return;
    // A record under its final name was written whole (temp file + rename): nothing to fetch.
    // Asked here, in the consents' own pool, so the walk never waits on the consents folder.
    if (await consentStored(ctx.consents, ref.id)) return;
    const record = await withRetry(ctx.policy, () => ctx.client.getConsent(ref.url, ctx.signal), { signal: ctx.signal });
    if (record.id !== ref.id) throw new ApiError('malformed', `consent ${ref.id}: the service returned consent ${record.id}`);
    await writeConsent(ctx.consents, ref.id, record).catch((e) => {
      throw localFsError(e, `write consent ${ref.id}`);
    });
  } catch (e) {
    if (ctx.endsSync(e)) return;
    const reason = `consent ${ref.id}: ${(e as Error).message}`;
    const code = failureCode(e);
    sp.failures.push({ reason, code });
    ctx.accounting.recordFailure({ setId: sp.set.id, reason, code });
  } finally {
    stepDone(ctx, sp);
  }
}

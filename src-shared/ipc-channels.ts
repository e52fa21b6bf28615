// Runtime lists of the IPC channel names. The preload exposes exactly these, main registers
// a handler for each, and the type checks below fail the build when the contract gains or
// loses a channel that is not listed here. Kept apart from the schemas so the sandboxed
// preload bundles a few strings, not zod.
import type { CoreInvokeChannels, EventChannel, EventChannels } from './ipc-contract';
import type { RecruiterInvokeChannel, RecruiterInvokeChannels } from './recruiter-ipc-contract';

export const CORE_INVOKE_CHANNELS = [
  'connection:get',
  'connection:connect',
  'connection:forget',
  'accounts:switch',
  'collections:list',
  'collections:get',
  'sets:list',
  'settings:get',
  'settings:update',
  'dataset:pickFolder',
  'dataset:showInFolder',
  'dataset:showConsents',
  'dataset:card',
  'dataset:chooseBucket',
  'dataset:testBucket',
  'sync:start',
  'sync:repair',
  'sync:cancel',
  'sync:pause',
  'sync:resume',
  'sync:state',
  'sync:history',
  'verify:run',
  'verify:cancel',
  'app:openExternal',
  'autosync:next',
  'sync:all',
  'dataset:sets',
  'dataset:reveal',
  'media:base',
  'dataset:setSubset',
  'dataset:withdrawn',
  'dataset:purgeWithdrawn',
] as const satisfies ReadonlyArray<keyof CoreInvokeChannels>;

export type CoreInvokeChannel = (typeof CORE_INVOKE_CHANNELS)[number];

export const RECRUITER_INVOKE_CHANNELS = [
  'recruiter:connection:get',
  'recruiter:connect',
  'recruiter:forget',
  'recruiter:jobs:list',
  'recruiter:jobs:get',
  'recruiter:jobs:create',
  'recruiter:jobs:update',
  'recruiter:jobs:publish',
  'recruiter:jobs:pause',
  'recruiter:jobs:resume',
  'recruiter:jobs:close',
  'recruiter:applications:list',
  'recruiter:applications:get',
  'recruiter:applications:accept',
  'recruiter:applications:reject',
  'recruiter:applications:setStatus',
  'recruiter:applications:approveWork',
  'recruiter:champs:search',
  'recruiter:champs:get',
  'recruiter:champs:matches',
] as const satisfies ReadonlyArray<keyof RecruiterInvokeChannels>;

/** Every invoke channel: what main registers and the preload exposes. */
export const INVOKE_CHANNELS = [...CORE_INVOKE_CHANNELS, ...RECRUITER_INVOKE_CHANNELS] as const;

export const EVENT_CHANNELS = ['sync:events', 'sync:state', 'verify:progress', 'notice'] as const satisfies ReadonlyArray<EventChannel>;

// Exhaustiveness: every contract channel must be listed (the reverse is ensured by `satisfies`).
type Missing<All, Listed> = Exclude<All, Listed>;
const _allInvokeListed: [Missing<keyof CoreInvokeChannels, CoreInvokeChannel>] extends [never] ? true : false = true;
const _allEventsListed: [Missing<keyof EventChannels, (typeof EVENT_CHANNELS)[number]>] extends [never] ? true : false = true;
const _allRecruiterListed: [Missing<RecruiterInvokeChannel, (typeof RECRUITER_INVOKE_CHANNELS)[number]>] extends [never] ? true : false = true;
void _allInvokeListed;
void _allRecruiterListed;
void _allEventsListed;

const invokeSet: ReadonlySet<string> = new Set(INVOKE_CHANNELS);
const eventSet: ReadonlySet<string> = new Set(EVENT_CHANNELS);

export function isInvokeChannel(name: unknown): name is CoreInvokeChannel | RecruiterInvokeChannel {
  return typeof name === 'string' && invokeSet.has(name);
}

export function isEventChannel(name: unknown): name is EventChannel {
  return typeof name === 'string' && eventSet.has(name);
}

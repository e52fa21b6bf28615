// Runtime lists of the IPC channel names. The preload exposes exactly these, main registers
// a handler for each, and the type checks below fail the build when the contract gains or
// loses a channel that is not listed here.
import type { CoreInvokeChannels, EventChannel, EventChannels } from './contract';

export const CORE_INVOKE_CHANNELS = [
  'connection:get',
  'connection:connect',
  'connection:forget',
  'collections:list',
  'collections:get',
  'sets:list',
  'settings:get',
  'settings:update',
  'dataset:pickFolder',
  'dataset:showInFolder',
  'sync:start',
  'sync:cancel',
  'sync:state',
  'sync:history',
  'verify:run',
  'app:openExternal',
] as const satisfies ReadonlyArray<keyof CoreInvokeChannels>;

export type CoreInvokeChannel = (typeof CORE_INVOKE_CHANNELS)[number];

export const EVENT_CHANNELS = ['sync:events', 'sync:state', 'notice'] as const satisfies ReadonlyArray<EventChannel>;

// Exhaustiveness: every contract channel must be listed (the reverse is ensured by `satisfies`).
type Missing<All, Listed> = Exclude<All, Listed>;
const _allInvokeListed: [Missing<keyof CoreInvokeChannels, CoreInvokeChannel>] extends [never] ? true : false = true;
const _allEventsListed: [Missing<keyof EventChannels, (typeof EVENT_CHANNELS)[number]>] extends [never] ? true : false = true;
void _allInvokeListed;
void _allEventsListed;

const invokeSet: ReadonlySet<string> = new Set(CORE_INVOKE_CHANNELS);
const eventSet: ReadonlySet<string> = new Set(EVENT_CHANNELS);

export function isInvokeChannel(name: unknown): name is CoreInvokeChannel {
  return typeof name === 'string' && invokeSet.has(name);
}

export function isEventChannel(name: unknown): name is EventChannel {
  return typeof name === 'string' && eventSet.has(name);
}

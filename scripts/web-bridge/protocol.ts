// The wire format of the web bridge (npm run dev:web, browser tests): the RendererApi
// contract over one WebSocket.
import type { EventChannel, EventChannels, IpcResult } from '../../src-shared/ipc-contract';

export const BRIDGE_PATH = '/bridge';
export const BRIDGE_CLIENT_PATH = '/bridge-client.js';
/** Thumbnails and videos: /media/<token>/video|thumb/<collectionId>/<setId>/<file name> (src-main/app/media/media-request.ts). */
export const MEDIA_PATH = '/media/';
/** The per-run token: in the page URL's fragment (never sent over HTTP), then in the WebSocket URL's query. */
export const BRIDGE_TOKEN_PARAM = 'bridge-token';

/** Browser -> server: one invoke. */
export interface BridgeRequest {
  id: number;
  channel: string;
  arg?: unknown;
}

/** Server -> browser: the answer to one invoke. */
export interface BridgeResponse {
  id: number;
  result: IpcResult<unknown>;
}

/** Server -> browser: a main-process event push. */
export interface BridgePush<C extends EventChannel = EventChannel> {
  event: C;
  payload: EventChannels[C];
}

// The main process wired once: the app layer (app/services.ts) with the IPC handlers over it.
// Used by the Electron bootstrap and by the browser test bridge.
import { createAppServices, type AppServices, type AppServicesDeps } from '../app/services';
import { createHandlers, type Handlers, type ShellDeps } from './handlers';

export type MainServicesDeps = AppServicesDeps & ShellDeps;

export interface MainServices extends AppServices {
  handlers: Handlers;
}

export function createMainServices(deps: MainServicesDeps): MainServices {
  const app = createAppServices(deps);
  app.scheduler.reschedule();
  return { ...app, handlers: createHandlers(app, deps) };
}

export { startQueryPage, type QueryPageServer, type QueryPageServerOptions } from './server.js';
export { createQueryPageApp, type AppSecurity, type QueryPageOptions } from './app.js';
export { runAction, UI_ACTIONS, type ActionResult, type UiAction } from './actions.js';
export {
  RollbackFile,
  fileRollback,
  followRollback,
  guardRollback,
  ROLLBACK_FILE,
  type RollbackControl,
  type RollbackState,
} from './rollback.js';

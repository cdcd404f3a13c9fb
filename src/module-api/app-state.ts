/**
 * Module surface: a module's per-app state (docs/architecture.md, "Per-app state"). A module
 * declares its slot once (`const HUB = appSlot<Hub>('friends.hub')`) and keeps what it runs for
 * an app in `app.scope`, never in a module-level map keyed by the app: the scope lives from
 * openApp to closeApp and disposes what is still held when the app closes.
 */
export { appSlot, type AppScope, type AppSlot, type Dispose } from '../app-scope.ts';

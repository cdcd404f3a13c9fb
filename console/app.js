// Entry point: sign-in, the section router (location.hash, so the key never reaches a URL the
// server sees) and the shared status and error lines.
import { api, session, signIn, signOut } from './api.js';
import { field, fill, h } from './dom.js';
import { showClasses, showClass } from './data-view.js';
import { showSchema } from './schema-view.js';
import { showUsers, showRoles } from './users-view.js';
import { showSettings } from './settings-view.js';
import { showExports } from './exports-view.js';
import { showStatus } from './status-view.js';

const main = document.getElementById('main');
const errorBox = document.getElementById('error');
const statusBox = document.getElementById('status');
const nav = document.getElementById('nav');

// Which navigation (route() call) is current, and the latest redraw taken: a view draws only
// while both are still its own, so an answer that arrives late (the operator clicked elsewhere,
// signed out, or asked for a newer redraw meanwhile) never replaces what is on screen now.
let navigation = 0;
let latestDraw = 0;

/** What each view receives (viewUi adds redraw for one navigation). */
const ui = {
  /** Shows a failure to the operator (every action reports its error here). */
  fail(err) {
    errorBox.hidden = false;
    fill(errorBox, err instanceof Error ? err.message : String(err));
    errorBox.focus?.();
  },
  /** Shows a short success line and clears any error. */
  say(text) {
    errorBox.hidden = true;
    fill(statusBox, text);
  },
  /** Runs an action, reporting its failure; resolves to its result or undefined. */
  async run(work) {
    try {
      errorBox.hidden = true;
      return await work();
    } catch (err) {
      ui.fail(err);
      return undefined;
    }
  },
  go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
};

/** The ui of the views of navigation `nav`; their actions keep it, so their redraws stay tied to it. */
function viewUi(nav) {
  return {
    ...ui,
    /**
     * Called by a view before it asks the server anything: returns draw(...nodes), which fills
     * the page unless the operator went elsewhere or a later redraw started since (then it
     * does nothing and returns false).
     */
    redraw() {
      const turn = ++latestDraw;
      return (...nodes) => {
        if (nav !== navigation || turn !== latestDraw) return false;
        fill(main, ...nodes);
        return true;
      };
    },
  };
}

function loginForm() {
  nav.hidden = true;
  const appId = h('input', { name: 'appId', required: true, autocomplete: 'username', spellcheck: false });
  const key = h('input', { name: 'masterKey', type: 'password', required: true, autocomplete: 'current-password' });
  const form = h('form', { class: 'panel', 'aria-labelledby': 'login-title' },
    h('h2', { id: 'login-title' }, 'Sign in with the master key'),
    h('p', { class: 'muted' }, 'The key stays in this browser tab only and is sent to this server in a header; closing the tab forgets it.'),
    h('div', { class: 'bar' }, field('App ID', appId), field('Master key', key), h('button', { type: 'submit' }, 'Sign in')));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void ui.run(async () => {
      const s = { appId: appId.value.trim(), masterKey: key.value };
      // Any master-only route proves the key; the settings answer is small.
      await api('GET', '/1.1/larder/settings', undefined, s);
      signIn(s.appId, s.masterKey);
      key.value = '';
      ui.say('Signed in.');
      ui.go('#/data');
    });
  });
  fill(main, form);
  appId.focus();
}

const views = [
  [/^#\/data\/([^/]+)\/schema$/, (v, m) => showSchema(v, decodeURIComponent(m[1]))],
  [/^#\/data\/([^/]+)$/, (v, m) => showClass(v, decodeURIComponent(m[1]))],
  [/^#\/data$/, (v) => showClasses(v)],
  [/^#\/users$/, (v) => showUsers(v)],
  [/^#\/roles$/, (v) => showRoles(v)],
  [/^#\/settings$/, (v) => showSettings(v)],
  [/^#\/exports$/, (v) => showExports(v)],
  [/^#\/status$/, (v) => showStatus(v)],
];

async function route() {
  const mine = ++navigation;
  if (!session()) return loginForm();
  nav.hidden = false;
  const hash = location.hash || '#/data';
  for (const a of nav.querySelectorAll('a')) {
    if (hash.startsWith(a.getAttribute('href'))) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  for (const [re, show] of views) {
    const m = re.exec(hash);
    if (m) {
      errorBox.hidden = true;
      fill(main, h('p', { class: 'muted' }, 'Loading…'));
      try {
        await show(viewUi(mine), m);
      } catch (err) {
        // A view the operator already left does not report its failure over the one they went to.
        if (mine === navigation) ui.fail(err);
        return;
      }
      if (mine === navigation) main.focus();
      return;
    }
  }
  ui.go('#/data');
}

document.getElementById('signout').addEventListener('click', () => {
  signOut();
  ui.say('Signed out.');
  route();
});
window.addEventListener('hashchange', route);
route();

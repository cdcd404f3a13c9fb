// Users (search, password reset mail, signing a user out everywhere) and roles (list, members,
// create). Both are ordinary classes read and written as the master key.
import { api, qs, seg } from './api.js';
import { field, h, preview } from './dom.js';

/** `\Q...\E` quoting, as the SDKs send a prefix search. */
function startsWith(text) {
  return { $regex: `^\\Q${text.replaceAll('\\E', '\\E\\\\E\\Q')}\\E`, $options: 'i' };
}

function userRow(ui, u) {
  const reset = h('button', { type: 'button', disabled: !u.email, onclick: () => ui.run(async () => {
    await api('POST', '/1.1/requestPasswordReset', { email: u.email });
    ui.say(`Password reset mail sent to ${u.email}.`);
  }) }, 'Send password reset mail');
  const signOutAll = h('button', { type: 'button', onclick: () => ui.run(async () => {
    if (!confirm(`Sign ${u.username ?? u.objectId} out of every device (new session token)?`)) return;
    await api('PUT', `/1.1/users/${seg(u.objectId)}/refreshSessionToken`, {});
    ui.say(`${u.username ?? u.objectId}: old session token revoked.`);
  }) }, 'Sign out everywhere');
  return h('tr', {}, h('td', {}, h('a', { href: `#/data/_User` }, u.objectId)), h('td', {}, u.username ?? ''), h('td', {}, u.email ?? ''),
    h('td', {}, u.mobilePhoneNumber ?? ''), h('td', {}, preview(u.emailVerified)), h('td', {}, u.updatedAt ?? ''), h('td', {}, reset, ' ', signOutAll));
}

/** Users with a search over username, email and phone number. */
export async function showUsers(ui, term = '') {
  const draw = ui.redraw();
  const where = term ? { $or: [{ username: startsWith(term) }, { email: startsWith(term) }, { mobilePhoneNumber: startsWith(term) }] } : {};
  const answer = await api('GET', `/1.1/classes/_User${qs({ where, order: '-updatedAt', limit: 100, count: 1 })}`);
  const search = h('input', { name: 'search', type: 'search', value: term, spellcheck: false });
  const form = h('form', { class: 'inline', role: 'search' }, field('Username, email or phone starts with', search), h('button', { type: 'submit' }, 'Search'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void ui.run(() => showUsers(ui, search.value.trim()));
  });
  draw(h('h2', {}, 'Users'), form,
    h('p', { id: 'user-count' }, `${answer.count} user(s)${term ? ` starting with “${term}”` : ''}${answer.count > answer.results.length ? `, first ${answer.results.length} shown` : ''}. Edit fields in the `, h('a', { href: '#/data/_User' }, '_User data browser'), '.'),
    h('div', { class: 'scroll' }, h('table', { id: 'users' },
      h('thead', {}, h('tr', {}, ['objectId', 'username', 'email', 'phone', 'email verified', 'updated', 'actions'].map((t) => h('th', {}, t)))),
      h('tbody', {}, answer.results.map((u) => userRow(ui, u))))));
  search.focus();
}

/** Roles with their direct members; a form to create one. */
export async function showRoles(ui) {
  const draw = ui.redraw();
  const roles = (await api('GET', `/1.1/classes/_Role${qs({ order: 'name', limit: 1000 })}`)).results;
  const rows = await Promise.all(roles.map(async (r) => {
    const where = { $relatedTo: { object: { __type: 'Pointer', className: '_Role', objectId: r.objectId }, key: 'users' } };
    const members = (await api('GET', `/1.1/classes/_User${qs({ where, limit: 20, count: 1, keys: 'username' })}`));
    const names = members.results.map((u) => u.username ?? u.objectId).join(', ');
    return h('tr', {}, h('td', {}, r.name ?? ''), h('td', {}, r.objectId), h('td', {}, `${members.count}${names ? `: ${names}` : ''}`), h('td', {}, preview(r.ACL)));
  }));
  const name = h('input', { name: 'roleName', required: true, spellcheck: false });
  const form = h('form', { class: 'inline', 'aria-label': 'Create a role' }, field('New role name', name), h('button', { type: 'submit' }, 'Create role'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void ui.run(async () => {
      // A role needs an ACL; readable by everyone, writable by the master key only.
      await api('POST', '/1.1/roles', { name: name.value.trim(), ACL: { '*': { read: true } } });
      await showRoles(ui);
      // Said after the page is drawn again, so the message is the last thing to change.
      ui.say(`Role ${name.value.trim()} created.`);
    });
  });
  draw(h('h2', {}, 'Roles'),
    h('p', { class: 'muted' }, 'Members and inherited roles are the relations users and roles of each _Role object: edit them in the ', h('a', { href: '#/data/_Role' }, '_Role data browser'), '.'),
    roles.length ? h('table', { id: 'roles' }, h('thead', {}, h('tr', {}, ['name', 'objectId', 'users', 'ACL'].map((t) => h('th', {}, t)))), h('tbody', {}, rows)) : h('p', {}, 'No roles yet.'),
    form);
}

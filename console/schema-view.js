// One class's schema: fields (and adding one), indexes (list, create, drop), class permissions
// and the default ACL, through /1.1/schemas and the /1.1/larder admin routes.
import { api, qs, seg } from './api.js';
import { field, h, parseJson } from './dom.js';

const OPERATIONS = ['get', 'find', 'create', 'update', 'delete', 'add_fields'];
const TYPES = ['String', 'Number', 'Boolean', 'Date', 'Array', 'Object', 'GeoPoint', 'Pointer', 'Relation', 'File'];

function list(text) {
  return text.split(',').map((s) => s.trim()).filter(Boolean);
}

/** One permission row: everyone / signed-in users / the listed users and roles. */
function permissionRow(op, rule) {
  const kind = rule['*'] ? 'everyone' : rule.onlySignInUsers ? 'signedIn' : 'listed';
  const pick = h('select', { name: `perm-${op}`, 'aria-label': `Who may ${op}` },
    h('option', { value: 'everyone', selected: kind === 'everyone' }, 'everyone'),
    h('option', { value: 'signedIn', selected: kind === 'signedIn' }, 'signed-in users'),
    h('option', { value: 'listed', selected: kind === 'listed' }, 'listed users and roles (none: master key only)'));
  const users = h('input', { name: `users-${op}`, 'aria-label': `User ids for ${op}`, value: (rule.users ?? []).join(', '), spellcheck: false });
  const roles = h('input', { name: `roles-${op}`, 'aria-label': `Role names for ${op}`, value: (rule.roles ?? []).join(', '), spellcheck: false });
  const read = () => {
    if (pick.value === 'everyone') return { '*': true };
    if (pick.value === 'signedIn') return { onlySignInUsers: true };
    return { users: list(users.value), roles: list(roles.value) };
  };
  return { row: h('tr', {}, h('th', { scope: 'row' }, op), h('td', {}, pick), h('td', {}, users), h('td', {}, roles)), read };
}

/** Shows the schema page of a class. */
export async function showSchema(ui, className) {
  const draw = ui.redraw();
  const c = seg(className);
  const [schema, indexes, perms, acl] = await Promise.all([
    api('GET', `/1.1/schemas/${c}`),
    api('GET', `/1.1/larder/indexes${qs({ className })}`),
    api('GET', `/1.1/larder/classes/${c}/permissions`),
    api('GET', `/1.1/larder/classes/${c}/defaultACL`),
  ]);
  const again = () => ui.run(() => showSchema(ui, className));

  const fields = h('table', { id: 'fields' }, h('thead', {}, h('tr', {}, h('th', {}, 'Field'), h('th', {}, 'Type'), h('th', {}, 'Target class'))),
    h('tbody', {}, Object.entries(schema).map(([name, f]) => h('tr', {}, h('td', {}, name), h('td', {}, f.type), h('td', {}, f.className ?? '')))));
  const fName = h('input', { name: 'fieldName', required: true, spellcheck: false });
  const fType = h('select', { name: 'fieldType' }, TYPES.map((t) => h('option', { value: t }, t)));
  const fTarget = h('input', { name: 'targetClass', spellcheck: false, placeholder: 'Pointer/Relation only' });
  const addField = h('form', { class: 'inline', 'aria-label': 'Add a field' }, field('New field', fName), field('Type', fType), field('Target class', fTarget), h('button', { type: 'submit' }, 'Add field'));
  addField.addEventListener('submit', (e) => {
    e.preventDefault();
    void ui.run(async () => {
      const body = { name: fName.value.trim(), type: fType.value };
      if (fTarget.value.trim()) body.className = fTarget.value.trim();
      await api('POST', `/1.1/larder/classes/${c}/fields`, body);
      await showSchema(ui, className);
      // Said after the page is drawn again, so the message is the last thing to change.
      ui.say(`Field ${body.name} added.`);
    });
  });

  const idxRows = indexes.results.map((i) => h('tr', {}, h('td', {}, i.field), h('td', {}, i.type), h('td', {}, i.using), h('td', {}, i.state), h('td', {}, i.name),
    h('td', {}, h('button', { type: 'button', onclick: () => ui.run(async () => {
      if (!confirm(`Drop the index on ${i.field}?`)) return;
      await api('DELETE', `/1.1/larder/classes/${c}/indexes/${seg(i.field)}`);
      await showSchema(ui, className);
      // Said after the page is drawn again, so the message is the last thing to change.
      ui.say(`Index on ${i.field} dropped.`);
    }) }, 'Drop'))));
  const idxField = h('input', { name: 'indexField', required: true, spellcheck: false });
  const addIndex = h('form', { class: 'inline', 'aria-label': 'Create an index' }, field('Index a field', idxField), h('button', { type: 'submit' }, 'Create index'));
  addIndex.addEventListener('submit', (e) => {
    e.preventDefault();
    void ui.run(async () => {
      const res = await api('POST', `/1.1/larder/classes/${c}/indexes`, { field: idxField.value.trim() });
      await showSchema(ui, className);
      // Said after the page is drawn again, so the message is the last thing to change.
      ui.say(`Index on ${idxField.value.trim()}: ${res.outcome ?? 'done'}.`);
    });
  });

  const rows = OPERATIONS.map((op) => permissionRow(op, perms[op] ?? {}));
  const permForm = h('form', { class: 'panel', 'aria-label': 'Class permissions' }, h('h3', {}, 'Class permissions'),
    h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Operation'), h('th', {}, 'Who'), h('th', {}, 'User ids'), h('th', {}, 'Role names'))), h('tbody', {}, rows.map((r) => r.row))),
    h('button', { type: 'submit' }, 'Save permissions'));
  permForm.addEventListener('submit', (e) => {
    e.preventDefault();
    void ui.run(async () => {
      const body = Object.fromEntries(OPERATIONS.map((op, i) => [op, rows[i].read()]));
      await api('PUT', `/1.1/larder/classes/${c}/permissions`, body);
      await again();
      // Said after the page is drawn again, so the message is the last thing to change.
      ui.say('Permissions saved.');
    });
  });

  const aclText = h('textarea', { name: 'defaultACL', rows: 4, spellcheck: false, value: JSON.stringify(acl.defaultACL, null, 2) });
  const aclForm = h('form', { class: 'panel', 'aria-label': 'Default ACL' }, h('h3', {}, 'Default ACL of new objects'),
    h('p', { class: 'muted' }, 'null: everyone reads and writes. "creator" stands for the user who creates the object.'),
    field('Default ACL (JSON)', aclText), h('button', { type: 'submit' }, 'Save default ACL'));
  aclForm.addEventListener('submit', (e) => {
    e.preventDefault();
    void ui.run(async () => {
      await api('PUT', `/1.1/larder/classes/${c}/defaultACL`, { defaultACL: parseJson(aclText.value || 'null', 'The default ACL') });
      ui.say('Default ACL saved.');
    });
  });

  draw(h('h2', {}, `${className}: schema`), h('p', {}, h('a', { href: `#/data/${c}` }, `Browse ${className}`)),
    h('section', { class: 'panel' }, h('h3', {}, 'Fields'), fields, addField),
    h('section', { class: 'panel' }, h('h3', {}, 'Indexes'),
      indexes.results.length ? h('table', { id: 'indexes' }, h('thead', {}, h('tr', {}, ['Field', 'Type', 'Using', 'State', 'Name', ''].map((t) => h('th', {}, t)))), h('tbody', {}, idxRows))
        : h('p', { class: 'muted' }, 'No field indexes (objectId, createdAt and updatedAt are always indexed).'),
      addIndex),
    permForm, aclForm);
}

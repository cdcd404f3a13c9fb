// The data browser: classes with counts, and one class's rows with paging, sorting, filters
// (the query operators), row creation and deletion; a cell opens the type-aware editor.
import { api, qs, seg } from './api.js';
import { editCell } from './cell-editor.js';
import { field, h, parseJson, preview } from './dom.js';

const PAGE = 50;
const OPERATORS = ['$eq', '$ne', '$lt', '$lte', '$gt', '$gte', '$in', '$nin', '$exists', '$regex', '$all'];

/** The schemas of every class, `{className: {field: {type, className?}}}`. */
export async function schemas() {
  return api('GET', '/1.1/schemas');
}

/** Classes with their object counts. */
export async function showClasses(ui) {
  const draw = ui.redraw();
  const all = await schemas();
  const names = Object.keys(all).sort();
  const rows = await Promise.all(names.map(async (name) => {
    let count;
    try {
      count = (await api('GET', `/1.1/classes/${seg(name)}${qs({ count: 1, limit: 0 })}`)).count;
    } catch (err) {
      count = `? (${err.message})`;
    }
    return h('tr', {}, h('td', {}, h('a', { href: `#/data/${seg(name)}` }, name)), h('td', {}, String(count)),
      h('td', {}, h('a', { href: `#/data/${seg(name)}/schema` }, 'schema, indexes, permissions')));
  }));
  const newName = h('input', { name: 'className', required: true, pattern: '[A-Za-z][A-Za-z0-9_]*', spellcheck: false });
  const create = h('form', { class: 'inline' }, field('New class', newName), h('button', { type: 'submit' }, 'Create class'));
  create.addEventListener('submit', (e) => {
    e.preventDefault();
    void ui.run(async () => {
      await api('PUT', `/1.1/larder/classes/${seg(newName.value)}/permissions`, {});
      ui.say(`Class ${newName.value} created.`);
      ui.go(`#/data/${seg(newName.value)}`);
    });
  });
  draw(h('h2', {}, 'Classes'),
    names.length ? h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Class'), h('th', {}, 'Objects'), h('th', {}, ''))), h('tbody', {}, rows))
      : h('p', {}, 'No classes yet.'),
    create);
}

/** The state of one class view (kept while the operator pages, sorts and filters). */
function initialState() {
  return { skip: 0, order: '-updatedAt', where: {} };
}

/** Parses the filter value the operator typed: JSON when it parses, text otherwise. */
function filterValue(op, text) {
  if (op === '$regex') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Rows of a class, with the query controls. */
export async function showClass(ui, className, state = initialState()) {
  const draw = ui.redraw();
  const schema = (await schemas())[className];
  if (!schema) throw new Error(`Class ${className} does not exist.`);
  const columns = ['objectId', ...Object.keys(schema).filter((f) => f !== 'objectId' && f !== 'createdAt' && f !== 'updatedAt'), 'createdAt', 'updatedAt'];
  const params = { where: state.where, order: state.order, limit: PAGE, skip: state.skip, count: 1, returnACL: 'true' };
  const answer = await api('GET', `/1.1/classes/${seg(className)}${qs(params)}`);
  const reload = () => ui.run(() => showClass(ui, className, state));

  // Filters: one condition built from pickers, or the whole `where` as JSON.
  const fieldPick = h('select', { name: 'field' }, columns.map((c) => h('option', { value: c }, c)));
  const opPick = h('select', { name: 'op' }, OPERATORS.map((o) => h('option', { value: o }, o)));
  const value = h('input', { name: 'value', spellcheck: false, placeholder: 'JSON or text' });
  const whereText = h('textarea', { name: 'where', rows: 3, spellcheck: false, value: JSON.stringify(state.where, null, 1) });
  const addFilter = h('form', { class: 'inline', 'aria-label': 'Add a filter' }, field('Field', fieldPick), field('Operator', opPick), field('Value', value), h('button', { type: 'submit' }, 'Add filter'));
  addFilter.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = filterValue(opPick.value, value.value);
    const cond = opPick.value === '$eq' ? v : { ...(typeof state.where[fieldPick.value] === 'object' ? state.where[fieldPick.value] : {}), [opPick.value]: v };
    state.where = { ...state.where, [fieldPick.value]: cond };
    state.skip = 0;
    void reload();
  });
  const whereForm = h('form', { class: 'inline', 'aria-label': 'Query' }, field('where (JSON)', whereText), h('button', { type: 'submit' }, 'Run query'),
    h('button', { type: 'button', onclick: () => { state.where = {}; state.skip = 0; void reload(); } }, 'Clear filters'));
  whereForm.addEventListener('submit', (e) => {
    e.preventDefault();
    void ui.run(async () => {
      state.where = parseJson(whereText.value || '{}', 'where');
      state.skip = 0;
      await showClass(ui, className, state);
    });
  });

  const selected = new Set();
  const sortButton = (c) => {
    const dir = state.order === c ? ' ▲' : state.order === `-${c}` ? ' ▼' : '';
    return h('button', { type: 'button', 'aria-label': `Sort by ${c}`, onclick: () => { state.order = state.order === c ? `-${c}` : c; void reload(); } }, c + dir);
  };
  const body = answer.results.map((obj) => h('tr', {},
    h('td', {}, h('input', { type: 'checkbox', 'aria-label': `Select ${obj.objectId}`, onchange: (e) => (e.target.checked ? selected.add(obj.objectId) : selected.delete(obj.objectId)) })),
    columns.map((c) => h('td', {}, c === 'objectId' || c === 'createdAt' || c === 'updatedAt'
      ? preview(obj[c])
      : h('button', { type: 'button', class: 'cell', 'data-field': c, 'aria-label': `Edit ${c} of ${obj.objectId}`, onclick: () => editCell(ui, { className, obj, field: c, type: schema[c], done: reload }) }, preview(obj[c]))))));

  const del = h('button', { type: 'button', onclick: () => ui.run(async () => {
    if (!selected.size) throw new Error('Select rows to delete first.');
    if (!confirm(`Delete ${selected.size} object(s) of ${className}?`)) return;
    for (const id of selected) await api('DELETE', `/1.1/classes/${seg(className)}/${seg(id)}`);
    await showClass(ui, className, state);
    // Said after the page is drawn again, so the message is the last thing to change.
    ui.say(`Deleted ${selected.size} object(s).`);
  }) }, 'Delete selected');
  const newRow = h('textarea', { name: 'newObject', rows: 3, spellcheck: false, value: '{}' });
  const addRow = h('form', { class: 'inline', 'aria-label': 'Add a row' }, field('New object (JSON)', newRow), h('button', { type: 'submit' }, 'Add row'));
  addRow.addEventListener('submit', (e) => {
    e.preventDefault();
    void ui.run(async () => {
      const created = await api('POST', `/1.1/classes/${seg(className)}`, parseJson(newRow.value, 'The new object'));
      await showClass(ui, className, state);
      // Said after the page is drawn again, so the message is the last thing to change.
      ui.say(`Created ${created.objectId}.`);
    });
  });
  const first = answer.count ? state.skip + 1 : 0;
  const last = state.skip + answer.results.length;
  draw(
    h('h2', {}, className), h('p', {}, h('a', { href: `#/data/${seg(className)}/schema` }, 'Schema, indexes and permissions'), ' · ', h('a', { href: '#/data' }, 'All classes')),
    addFilter, whereForm,
    h('div', { class: 'bar' },
      h('span', { id: 'range' }, `${first}–${last} of ${answer.count}`),
      h('button', { type: 'button', disabled: state.skip === 0, onclick: () => { state.skip = Math.max(0, state.skip - PAGE); void reload(); } }, 'Previous page'),
      h('button', { type: 'button', disabled: last >= answer.count, onclick: () => { state.skip += PAGE; void reload(); } }, 'Next page'),
      del),
    h('div', { class: 'scroll' }, h('table', { id: 'rows' }, h('thead', {}, h('tr', {}, h('th', {}, ''), columns.map((c) => h('th', { scope: 'col' }, sortButton(c))))), h('tbody', {}, body))),
    h('div', { id: 'editor' }),
    addRow);
}

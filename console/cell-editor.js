// Type-aware editing of one field of one object: Date, Pointer, GeoPoint, File (with preview),
// Boolean, Number, String, and JSON for ACL, arrays, objects and anything else. Saving sends the
// same PUT a client would, as the master key; "Unset" sends the Delete operation.
import { api, seg } from './api.js';
import { field, fill, h, parseJson } from './dom.js';

/** `datetime-local` text (UTC) of an ISO date. */
function localText(iso) {
  return typeof iso === 'string' ? iso.slice(0, 23) : '';
}

/** Builds the controls for a type; returns `{nodes, read()}`, read() gives the wire value. */
function controlsFor(type, current) {
  const t = type?.type;
  if (t === 'String') {
    const input = h('textarea', { name: 'value', rows: 3, value: typeof current === 'string' ? current : '' });
    return { nodes: [field('Text', input)], read: () => input.value };
  }
  if (t === 'Number') {
    const input = h('input', { name: 'value', type: 'number', step: 'any', value: typeof current === 'number' ? String(current) : '' });
    return { nodes: [field('Number', input)], read: () => {
      if (input.value.trim() === '' || !Number.isFinite(Number(input.value))) throw new Error('Enter a number.');
      return Number(input.value);
    } };
  }
  if (t === 'Boolean') {
    const input = h('input', { name: 'value', type: 'checkbox', checked: current === true });
    return { nodes: [field('True', input, 'check')], read: () => input.checked };
  }
  if (t === 'Date') {
    const input = h('input', { name: 'value', type: 'datetime-local', step: '0.001', value: localText(current?.iso) });
    return { nodes: [field('Date and time (UTC)', input)], read: () => {
      if (!input.value) throw new Error('Enter a date.');
      return { __type: 'Date', iso: new Date(`${input.value}Z`).toISOString() };
    } };
  }
  if (t === 'Pointer') {
    const input = h('input', { name: 'value', spellcheck: false, value: current?.objectId ?? '' });
    return { nodes: [field(`objectId of a ${type.className}`, input)], read: () => ({ __type: 'Pointer', className: type.className, objectId: input.value.trim() }) };
  }
  if (t === 'GeoPoint') {
    const lat = h('input', { name: 'latitude', type: 'number', step: 'any', value: current?.latitude ?? '' });
    const lng = h('input', { name: 'longitude', type: 'number', step: 'any', value: current?.longitude ?? '' });
    return { nodes: [field('Latitude', lat), field('Longitude', lng)], read: () => ({ __type: 'GeoPoint', latitude: Number(lat.value), longitude: Number(lng.value) }) };
  }
  if (t === 'File') return fileControls(current);
  // ACL, Array, Object, Bytes, Relation and untyped fields: JSON.
  const input = h('textarea', { name: 'value', rows: 6, spellcheck: false, value: current === undefined ? '' : JSON.stringify(current, null, 2) });
  return { nodes: [field(`${t ?? 'Any'} value (JSON)`, input)], read: () => parseJson(input.value, 'The value') };
}

/** A file field: its name and link, an image preview, and the file objectId to point at. */
function fileControls(current) {
  const input = h('input', { name: 'value', spellcheck: false, value: current?.objectId ?? current?.id ?? '' });
  const nodes = [];
  const url = typeof current?.url === 'string' && /^https?:\/\//i.test(current.url) ? current.url : undefined;
  if (url) {
    nodes.push(h('p', {}, h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, current.name ?? url)));
    if (/\.(png|jpe?g|gif|webp|svg)(\?|$)/i.test(url) || /^image\//.test(current?.metaData?.mime_type ?? current?.mime_type ?? '')) {
      nodes.push(h('img', { class: 'preview', src: url, alt: `Preview of ${current.name ?? 'the file'}` }));
    }
  }
  nodes.push(field('objectId of a file (_File)', input));
  return { nodes, read: () => ({ __type: 'File', objectId: input.value.trim() }) };
}

/** Opens the editor of `field` of `obj` below the table. */
export function editCell(ui, { className, obj, field: name, type, done }) {
  const box = document.getElementById('editor');
  const { nodes, read } = controlsFor(type, obj[name]);
  const save = async (value) => {
    await api('PUT', `/1.1/classes/${seg(className)}/${seg(obj.objectId)}`, { [name]: value });
    await done();
    // Said after the page is drawn again, so the message is the last thing to change.
    ui.say(`Saved ${name} of ${obj.objectId}.`);
  };
  const form = h('form', { class: 'panel', 'aria-label': `Edit ${name}` },
    h('h3', {}, `${className} ${obj.objectId}: ${name}`, h('span', { class: 'muted' }, ` (${type?.type ?? 'no type yet'})`)),
    nodes,
    h('div', { class: 'bar' },
      h('button', { type: 'submit' }, 'Save'),
      h('button', { type: 'button', onclick: () => ui.run(() => save({ __op: 'Delete' })) }, 'Unset'),
      h('button', { type: 'button', onclick: () => fill(box) }, 'Cancel')));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void ui.run(() => save(read()));
  });
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') fill(box);
  });
  fill(box, form);
  form.querySelector('input, textarea')?.focus();
}

// App settings (docs/admin.md): every switch the server knows, each with a control for its type;
// saving sends only the changed ones.
import { api } from './api.js';
import { field, h, parseJson } from './dom.js';

function control(name, value) {
  if (typeof value === 'boolean') return { el: h('input', { type: 'checkbox', name, checked: value }), read: (el) => el.checked };
  if (typeof value === 'number') return { el: h('input', { type: 'number', name, value: String(value) }), read: (el) => Number(el.value) };
  if (typeof value === 'string') return { el: h('input', { name, value, spellcheck: false }), read: (el) => el.value };
  return { el: h('textarea', { name, rows: 4, spellcheck: false, value: JSON.stringify(value, null, 2) }), read: (el) => parseJson(el.value, name) };
}

/** The settings form. */
export async function showSettings(ui) {
  const draw = ui.redraw();
  const settings = await api('GET', '/1.1/larder/settings');
  const controls = Object.entries(settings).map(([name, value]) => ({ name, value, ...control(name, value) }));
  const form = h('form', { class: 'panel', 'aria-label': 'App settings' },
    controls.map((c) => h('div', {}, field(c.name, c.el, typeof c.value === 'boolean' ? 'check' : undefined))),
    h('button', { type: 'submit' }, 'Save settings'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void ui.run(async () => {
      const change = {};
      for (const c of controls) {
        const v = c.read(c.el);
        if (JSON.stringify(v) !== JSON.stringify(c.value)) change[c.name] = v;
      }
      if (!Object.keys(change).length) return ui.say('Nothing changed.');
      await api('PUT', '/1.1/larder/settings', change);
      await showSettings(ui);
      // Said after the page is drawn again, so the message is the last thing to change.
      ui.say(`Saved: ${Object.keys(change).join(', ')}.`);
    });
  });
  draw(h('h2', {}, 'App settings'),
    h('p', { class: 'muted' }, 'Meaning of each setting: docs/admin.md. Object settings merge key by key; null resets to the default. The friends rich-presence settings (richPresenceSync, friendModel, ...) are here too.'),
    form);
}

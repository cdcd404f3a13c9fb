// Export jobs (docs/export.md): start one, watch its progress, download the archive. The job ids
// started from this tab are remembered in sessionStorage; any other id can be looked up.
import { api, seg } from './api.js';
import { field, h } from './dom.js';

const STORE = 'larder.console.exports';

function known() {
  try {
    return JSON.parse(sessionStorage.getItem(STORE) ?? '[]');
  } catch {
    return [];
  }
}

function remember(id) {
  sessionStorage.setItem(STORE, JSON.stringify([id, ...known().filter((x) => x !== id)].slice(0, 20)));
}

async function jobRow(id) {
  let job;
  try {
    job = await api('GET', `/1.1/exportData/${seg(id)}`);
  } catch (err) {
    return h('tr', {}, h('td', {}, id), h('td', {}, 'unknown'), h('td', {}, err.message));
  }
  const link = typeof job.download_url === 'string' && /^https?:\/\//.test(job.download_url) ? h('a', { href: job.download_url, download: '' }, 'Download archive') : job.reason ?? '';
  return h('tr', { 'data-status': job.status }, h('td', {}, id), h('td', {}, job.status), h('td', {}, link));
}

/** The export page. */
export async function showExports(ui) {
  const draw = ui.redraw();
  const classes = h('input', { name: 'classes', spellcheck: false, placeholder: 'all classes' });
  const from = h('input', { name: 'from_date', type: 'date' });
  const to = h('input', { name: 'to_date', type: 'date' });
  const onlySchema = h('input', { name: 'only-schema', type: 'checkbox' });
  const email = h('input', { name: 'email', type: 'email' });
  const form = h('form', { class: 'panel', 'aria-label': 'Start an export' }, h('h3', {}, 'Start an export'),
    h('div', { class: 'bar' }, field('Classes (comma-separated)', classes), field('Updated from', from), field('Updated to', to),
      field('Schema only', onlySchema, 'check'), field('Mail when done', email)),
    h('button', { type: 'submit' }, 'Start export'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void ui.run(async () => {
      const body = {};
      if (classes.value.trim()) body.classes = classes.value.replace(/\s+/g, '');
      if (from.value) body.from_date = from.value;
      if (to.value) body.to_date = to.value;
      if (onlySchema.checked) body['only-schema'] = 'true';
      if (email.value) body.email = email.value;
      const job = await api('POST', '/1.1/exportData', body);
      remember(job.id);
      await showExports(ui);
      // Said after the page is drawn again, so the message is the last thing to change.
      ui.say(`Export ${job.id} started.`);
    });
  });
  const lookup = h('input', { name: 'jobId', spellcheck: false });
  const find = h('form', { class: 'inline', 'aria-label': 'Look up a job' }, field('Job id', lookup), h('button', { type: 'submit' }, 'Look up'));
  find.addEventListener('submit', (e) => {
    e.preventDefault();
    remember(lookup.value.trim());
    void ui.run(() => showExports(ui));
  });
  const rows = await Promise.all(known().map(jobRow));
  draw(h('h2', {}, 'Exports'), form,
    h('section', { class: 'panel' }, h('h3', {}, 'Jobs'),
      rows.length ? h('table', { id: 'jobs' }, h('thead', {}, h('tr', {}, ['id', 'status', 'result'].map((t) => h('th', {}, t)))), h('tbody', {}, rows)) : h('p', {}, 'No jobs started from this tab.'),
      h('div', { class: 'bar' }, h('button', { type: 'button', onclick: () => ui.run(() => showExports(ui)) }, 'Refresh progress'), find)),
    h('p', { class: 'muted' }, 'Imports run from the command line (larder import), which prints their progress.'));
}

// The web console in a real headless Chromium (test/support/chromium.ts), once per engine: sign in
// with the keyboard, browse, filter, edit a cell, add a field and an index, change a permission,
// change a setting, start an export, read users and metrics; hostile stored values render as text.
// LARDER_CONSOLE_SCREENSHOTS=<dir> saves the screenshots of docs/console.md (PGlite run).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Locator, Page, Request, Route } from 'playwright-core';
import { forEachEngine, TEST_KEYS } from '../integration/harness/engines.ts';
import { launchChromium, type TestBrowser } from '../support/chromium.ts';

const XSS_TEXT = '<img src=x onerror="window.__xss=1">';
const XSS_OBJECT = { '</td><script>window__xss=2</script>': '<b onmouseover=alert(1)>bold</b>' };

forEachEngine('web console', (h) => {
  let chrome: TestBrowser;
  let page: Page;
  let base: string;
  const dialogs: string[] = [];
  const shotDir = process.env.LARDER_CONSOLE_SCREENSHOTS;
  const shot = async (name: string) => {
    if (shotDir && h().engine === 'pglite') await page.screenshot({ path: `${shotDir}/console-${name}.png`, fullPage: true });
  };
  const api = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => h().client.request({ method, url, body, master: true });

  before(async () => {
    base = await h().listen();
    for (const [i, title] of ['first', 'second', XSS_TEXT].entries()) {
      const res = await api('POST', '/1.1/classes/Post', {
        title, n: i + 1, at: { __type: 'Date', iso: `2026-01-0${i + 1}T10:00:00.000Z` },
        where: { __type: 'GeoPoint', latitude: 10 + i, longitude: 20 }, extra: XSS_OBJECT,
      });
      assert.equal(res.status, 201, res.text);
    }
    assert.equal((await api('POST', '/1.1/users', { username: '<svg onload=alert(1)>', password: 'pw-123456', email: 'ann@example.com' })).status, 201);
    chrome = await launchChromium();
    page = await chrome.context.newPage();
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      // The console's own confirmations (deleting rows) are accepted; anything else is recorded.
      void d.accept();
    });
  });
  after(async () => {
    await chrome?.close();
  });

  /** Waits until the error line shows a text matching `re` (each action reports there). */
  const expectError = (re: RegExp) => page.locator('#error').filter({ hasText: re }).waitFor();
  /**
   * Waits for `target` after a navigation or an action; when the page reports a failure instead,
   * fails at once with the page's words, not after the 30 s locator timeout with no reason. Only
   * for steps that start with no error on screen (a click on a link hides it a moment later).
   */
  const shows = async (target: Locator) => {
    await target.or(page.locator('#error:visible')).first().waitFor();
    if (!(await target.first().isVisible()) && (await page.locator('#error').isVisible())) {
      throw new Error(`the page shows an error instead: ${await page.locator('#error').textContent()}`);
    }
  };

  test('the page is served with a strict CSP and no secret; a wrong key gets a clear error', async () => {
    const res = await page.goto(`${base}/console`);
    assert.equal(res?.status(), 200);
    const csp = res?.headers()['content-security-policy'] ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(res?.headers()['x-frame-options'], 'DENY');
    const html = await res?.text();
    assert.doesNotMatch(html ?? '', /<script>|onclick=|testMasterKey/);
    await page.getByLabel('App ID').fill(TEST_KEYS.appId);
    await page.getByLabel('Master key', { exact: true }).fill('wrong-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectError(/HTTP 401|HTTP 403/);
    await shot('sign-in');
  });

  test('sign in with the keyboard only; the key is in no URL', async () => {
    await page.goto(`${base}/console`);
    await page.getByLabel('App ID').focus();
    await page.keyboard.type(TEST_KEYS.appId);
    await page.keyboard.press('Tab');
    await page.keyboard.type(TEST_KEYS.masterKey);
    await page.keyboard.press('Enter');
    await shows(page.getByRole('heading', { name: 'Classes' }));
    assert.ok(!page.url().includes(TEST_KEYS.masterKey));
    const stored = await page.evaluate(() => ({ local: localStorage.length, cookie: document.cookie }));
    assert.deepEqual(stored, { local: 0, cookie: '' });
  });

  test('classes with counts; rows render hostile values as text', async () => {
    const row = page.locator('tr', { has: page.getByRole('link', { name: 'Post', exact: true }) });
    assert.equal(await row.locator('td').nth(1).textContent(), '3');
    await shot('classes');
    await page.getByRole('link', { name: 'Post', exact: true }).click();
    await shows(page.locator('#range').filter({ hasText: '1–3 of 3' }));
    const table = page.locator('#rows');
    assert.ok((await table.textContent())?.includes(XSS_TEXT));
    assert.ok((await table.textContent())?.includes('</td><script>'));
    assert.equal(await table.locator('img, script, b, svg').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    assert.deepEqual(dialogs, []);
    await shot('rows');
  });

  test('filter with a query operator, sort by a column, page through', async () => {
    await page.getByLabel('Field').selectOption('n');
    await page.getByLabel('Operator').selectOption('$gt');
    await page.getByLabel('Value').fill('1');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await shows(page.locator('#range').filter({ hasText: '1–2 of 2' }));
    await page.getByRole('button', { name: 'Sort by n' }).click();
    await shows(page.locator('th', { hasText: 'n ▲' }));
    const firstN = await page.locator('#rows tbody tr').first().locator('button.cell[data-field="n"]').textContent();
    assert.equal(firstN, '2');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await shows(page.locator('#range').filter({ hasText: '1–3 of 3' }));
  });

  test('edit cells with type-aware editors (String, Date, GeoPoint) and see the change in the API', async () => {
    const first = (await api('GET', '/1.1/classes/Post?where={"n":1}')).body.results[0];
    await page.getByRole('button', { name: `Edit title of ${first.objectId}` }).click();
    await page.getByLabel('Text', { exact: true }).fill('edited <i>title</i>');
    await shot('edit-cell');
    await page.getByRole('button', { name: 'Save' }).click();
    await shows(page.locator('#status').filter({ hasText: `Saved title of ${first.objectId}` }));
    await page.getByRole('button', { name: `Edit at of ${first.objectId}` }).click();
    await page.getByLabel('Date and time (UTC)').fill('2030-05-06T07:08:09.010');
    await page.getByRole('button', { name: 'Save' }).click();
    await shows(page.locator('#status').filter({ hasText: `Saved at of ${first.objectId}` }));
    await page.getByRole('button', { name: `Edit where of ${first.objectId}` }).click();
    await page.getByLabel('Latitude').fill('-33.5');
    await page.getByRole('button', { name: 'Save' }).click();
    await shows(page.locator('#status').filter({ hasText: `Saved where of ${first.objectId}` }));
    const now = (await api('GET', `/1.1/classes/Post/${first.objectId}`)).body;
    assert.equal(now.title, 'edited <i>title</i>');
    assert.deepEqual(now.at, { __type: 'Date', iso: '2030-05-06T07:08:09.010Z' });
    assert.deepEqual(now.where, { __type: 'GeoPoint', latitude: -33.5, longitude: 20 });
    // A value of the wrong type is refused by the API and the console shows why.
    await page.getByRole('button', { name: `Edit extra of ${first.objectId}` }).click();
    await page.getByLabel('Object value (JSON)').fill('{not json');
    await page.getByRole('button', { name: 'Save' }).click();
    await expectError(/not valid JSON/);
  });

  test('add and delete a row', async () => {
    await page.getByLabel('New object (JSON)').fill('{"title": "added", "n": 9}');
    await page.getByRole('button', { name: 'Add row' }).click();
    await page.locator('#range').filter({ hasText: 'of 4' }).waitFor();
    const added = (await api('GET', '/1.1/classes/Post?where={"n":9}')).body.results[0];
    await page.getByLabel(`Select ${added.objectId}`).check();
    await page.getByRole('button', { name: 'Delete selected' }).click();
    await shows(page.locator('#range').filter({ hasText: '1–3 of 3' }));
    assert.equal((await api('GET', `/1.1/classes/Post/${added.objectId}`)).body.objectId, undefined);
  });

  test('schema: add a field, create an index, change a permission and the default ACL', async () => {
    await page.getByRole('link', { name: 'Schema, indexes and permissions' }).click();
    await shows(page.getByLabel('New field'));
    await page.getByLabel('New field').fill('score');
    await page.locator('select[name=fieldType]').selectOption('Number');
    await page.getByRole('button', { name: 'Add field' }).click();
    await shows(page.locator('#fields td', { hasText: 'score' }));
    await page.getByLabel('Index a field').fill('n');
    await page.getByRole('button', { name: 'Create index' }).click();
    await shows(page.locator('#indexes td', { hasText: 'n' }));
    await page.getByLabel('Who may create').selectOption('signedIn');
    await page.getByRole('button', { name: 'Save permissions' }).click();
    await shows(page.locator('#status').filter({ hasText: 'Permissions saved.' }));
    await shot('schema');
    const perms = (await api('GET', '/1.1/larder/classes/Post/permissions')).body;
    assert.deepEqual(perms.create, { onlySignInUsers: true });
    assert.deepEqual(perms.find, { '*': true });
    const schema = (await api('GET', '/1.1/schemas/Post')).body;
    assert.deepEqual(schema.score, { type: 'Number' });
    const wrong = await api('PUT', `/1.1/classes/Post/${(await api('GET', '/1.1/classes/Post?limit=1')).body.results[0].objectId}`, { score: 'text' });
    assert.equal(wrong.body.code, 111);
    const indexes = (await api('GET', '/1.1/larder/indexes?className=Post')).body.results;
    assert.deepEqual(indexes.map((i: { field: string }) => i.field), ['n']);
    await page.getByLabel('Default ACL (JSON)').fill('{"creator": {"read": true, "write": true}}');
    await page.getByRole('button', { name: 'Save default ACL' }).click();
    await shows(page.locator('#status').filter({ hasText: 'Default ACL saved.' }));
    assert.deepEqual((await api('GET', '/1.1/larder/classes/Post/defaultACL')).body, { defaultACL: { creator: { read: true, write: true } } });
  });

  test('users (hostile username shown as text) and roles', async () => {
    await page.getByRole('link', { name: 'Users' }).click();
    await shows(page.getByLabel('Username, email or phone starts with'));
    await page.getByLabel('Username, email or phone starts with').fill('ann@');
    await page.getByRole('button', { name: 'Search' }).click();
    // The list before the search holds the same user: wait for the search's own answer, so no
    // answer of this page is still coming when the test goes to Roles.
    await shows(page.locator('#user-count', { hasText: 'starting with “ann@”' }));
    assert.ok((await page.locator('#users').textContent())?.includes('ann@example.com'));
    assert.ok((await page.locator('#users').textContent())?.includes('<svg onload=alert(1)>'));
    assert.equal(await page.locator('#users svg').count(), 0);
    await shot('users');
    await page.getByRole('link', { name: 'Roles' }).click();
    await shows(page.getByLabel('New role name'));
    await page.getByLabel('New role name').fill('Moderators');
    await page.getByRole('button', { name: 'Create role' }).click();
    await shows(page.locator('#roles td', { hasText: 'Moderators' }));
  });

  test('a late answer of a page the operator left never replaces the page they went to', async () => {
    // The user search is held until the operator has gone to Roles; the console drew whichever
    // answer came last, so the users list replaced the roles page under the operator's hands.
    const searching = (url: URL) => url.pathname === '/1.1/classes/_User' && url.search.includes(encodeURIComponent('$or'));
    const isSearch = (r: Request) => searching(new URL(r.url()));
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const hold = async (route: Route) => {
      await held;
      await route.continue();
    };
    await page.route(searching, hold);
    try {
      await page.getByRole('link', { name: 'Users' }).click();
      await shows(page.getByLabel('Username, email or phone starts with'));
      await page.getByLabel('Username, email or phone starts with').fill('ann@');
      const search = page.waitForRequest(isSearch);
      await page.getByRole('button', { name: 'Search' }).click();
      const request = await search;
      await page.getByRole('link', { name: 'Roles' }).click();
      await shows(page.getByLabel('New role name'));
      release();
      await (await request.response())?.finished();
      // One more round trip through the page, so its code for the late answer has run.
      await page.getByLabel('New role name').fill('Editors');
      await page.getByRole('button', { name: 'Create role' }).click();
      await shows(page.locator('#roles td', { hasText: 'Editors' }));
      assert.equal(await page.locator('#users').count(), 0);
      assert.equal(await page.getByRole('heading', { name: 'Roles' }).count(), 1);
    } finally {
      release();
      await page.unroute(searching, hold);
    }
  });

  test('settings: a switch changed in the page is changed on the server', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await shows(page.getByLabel('includeACLInQueries'));
    await page.getByLabel('includeACLInQueries').check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await shows(page.locator('#status').filter({ hasText: 'Saved: includeACLInQueries.' }));
    await shot('settings');
    assert.equal((await api('GET', '/1.1/larder/settings')).body.includeACLInQueries, true);
    await page.getByLabel('friendsIdleTimeoutMs').fill('5');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expectError(/HTTP 400, code 1: Invalid app setting: friendsIdleTimeoutMs/);
  });

  test('start an export and follow it to its download link', async () => {
    await page.getByRole('link', { name: 'Exports' }).click();
    await page.getByLabel('Classes (comma-separated)').fill('Post');
    await page.getByRole('button', { name: 'Start export' }).click();
    await page.locator('#jobs tbody tr').first().waitFor();
    for (let i = 0; i < 60; i++) {
      if (await page.locator('#jobs tr[data-status="done"]').count()) break;
      await page.getByRole('button', { name: 'Refresh progress' }).click();
      await page.waitForTimeout(500);
    }
    const link = await page.getByRole('link', { name: 'Download archive' }).getAttribute('href');
    assert.match(link ?? '', /\/larder\/export\/[A-Za-z0-9]{48}\.tar\.gz\?token=/);
    await shot('exports');
    await page.getByLabel('Classes (comma-separated)').fill('NoSuchClass');
    await page.getByRole('button', { name: 'Start export' }).click();
    await expectError(/HTTP 404, code 101/);
  });

  test('cloud code status and metrics; sign out forgets the key', async () => {
    await page.getByRole('link', { name: 'Cloud code & metrics' }).click();
    await page.locator('#metrics').waitFor();
    assert.match((await page.locator('#cloud').textContent()) ?? '', /No LeanEngine app is configured/);
    assert.match((await page.locator('#metrics').textContent()) ?? '', /larder_http_requests_total/);
    await shot('status');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Master key', { exact: true }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
  });
});

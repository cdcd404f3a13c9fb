import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { escapeHtml, PAGE_HEADERS, renderPage, resetForm } from './page-html.ts';

test('escapeHtml escapes the five characters that matter in content and attributes', () => {
  assert.equal(escapeHtml(`<a href="x" onclick='y'>&</a>`), '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
});

test('a page escapes every text and has a lang attribute (odd tags fall back to en)', () => {
  const html = renderPage({ lang: 'en" onload="x', appName: '<App>', title: '<T>', paragraphs: ['a & <b>'], error: '<e>' });
  assert.match(html, /^<!doctype html>\n<html lang="en">/);
  assert.ok(html.includes('<title>&lt;T&gt; – &lt;App&gt;</title>'));
  assert.ok(html.includes('<p>a &amp; &lt;b&gt;</p>'));
  assert.ok(html.includes('<p class="error" role="alert">&lt;e&gt;</p>'));
  assert.ok(!html.includes('<script'));
  assert.match(renderPage({ lang: 'zh-CN', appName: 'a', title: 't', paragraphs: [] }), /<html lang="zh-CN">/);
});

test('the CSP allows exactly the page\'s style block by hash, and no script', () => {
  const html = renderPage({ lang: 'en', appName: 'a', title: 't', paragraphs: [] });
  const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
  const hash = createHash('sha256').update(style).digest('base64');
  const csp = PAGE_HEADERS['content-security-policy'];
  assert.ok(csp.includes(`style-src 'sha256-${hash}'`), csp);
  assert.match(csp, /default-src 'none'/);
  assert.ok(!csp.includes('script-src'));
});

test('the reset form labels its fields and escapes the token', () => {
  const form = resetForm('t"><x', { password: 'P', repeat: 'R', button: 'B' });
  assert.ok(form.includes('value="t&quot;&gt;&lt;x"'));
  assert.ok(form.includes('<label for="password">P</label>'));
  assert.ok(form.includes('<label for="repeat">R</label>'));
  assert.ok(form.includes('<button type="submit">B</button>'));
});

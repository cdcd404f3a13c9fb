// Every doc is true about what exists: relative links point at files (and headings) that exist,
// and every `larder <command>` the docs show is a command main.ts dispatches and --help lists.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { helpText } from '../../src/cli/help.ts';

const ROOT = resolve(new URL('../../', import.meta.url).pathname);

/** Every markdown file of the repository that a reader sees: the root's and docs/ (recursively). */
function markdownFiles(): string[] {
  const out = readdirSync(ROOT).filter((f) => f.endsWith('.md')).map((f) => join(ROOT, f));
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.md')) out.push(p);
    }
  };
  walk(join(ROOT, 'docs'));
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Markdown text without fenced code blocks and code spans (links inside code are not links). */
function prose(markdown: string): string {
  return markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
}

/** Fenced code blocks and code spans: where commands are shown. */
function code(markdown: string): string[] {
  return [...markdown.matchAll(/```[\s\S]*?```|`[^`\n]+`/g)].map((m) => m[0]);
}

test('every relative link in the docs points at a file that exists, and at a heading that exists', () => {
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(file, 'utf8');
    for (const m of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#');
      const dest = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
      const where = `${relative(ROOT, file)}: ${target}`;
      if (!existsSync(dest)) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (anchor && dest.endsWith('.md') && !anchors(readFileSync(dest, 'utf8')).has(anchor)) broken.push(`${where} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});

/** The commands main.ts dispatches: `case '<name>'` and the early `process.argv[2] === '<name>'`. */
function dispatchedCommands(): Set<string> {
  const main = readFileSync(join(ROOT, 'src/main.ts'), 'utf8');
  const names = [...main.matchAll(/case '([a-z][a-z-]*)'/g), ...main.matchAll(/process\.argv\[2\] === '([a-z][a-z-]*)'/g)].map((m) => m[1]);
  return new Set(names);
}

test('every `larder <command>` in the docs is dispatched by main.ts and listed by --help', () => {
  const commands = dispatchedCommands();
  assert.ok(commands.has('serve') && commands.has('index'), 'main.ts still dispatches with case labels');
  const help = helpText();
  const unknown: string[] = [];
  for (const file of markdownFiles()) {
    for (const block of code(readFileSync(file, 'utf8'))) {
      for (const m of block.matchAll(/(?<![\w/.-])larder[ \t]+([a-z][a-z-]*|--[a-z-]+)/g)) {
        const word = m[1];
        const ok = word.startsWith('--') ? help.includes(word) : commands.has(word) && help.includes(`larder ${word}`);
        if (!ok) unknown.push(`${relative(ROOT, file)}: larder ${word}`);
      }
    }
  }
  assert.deepEqual([...new Set(unknown)], []);
});

test('every command main.ts dispatches is in --help and in the command table of docs/running.md', () => {
  const running = readFileSync(join(ROOT, 'docs/running.md'), 'utf8');
  const missing = [...dispatchedCommands()].filter((c) => !helpText().includes(`larder ${c}`) || !running.includes(`| \`larder ${c}`) && !running.includes(`\`larder ${c}\``));
  assert.deepEqual(missing, []);
});

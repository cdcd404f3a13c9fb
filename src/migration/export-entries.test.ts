import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyEntry, parseHeader } from './export-entries.ts';

test('export file names', () => {
  const cases: [string, unknown][] = [
    ['_User.0.jsonl', { kind: 'class', className: '_User', format: 'jsonl' }],
    ['Comment.12.jsonl', { kind: 'class', className: 'Comment', format: 'jsonl' }],
    ['export/sub/Post.0.jsonl', { kind: 'class', className: 'Post', format: 'jsonl' }],
    ['Post.jsonl', { kind: 'class', className: 'Post', format: 'jsonl' }],
    ['Post.json', { kind: 'class', className: 'Post', format: 'json' }],
    ['Post_schema.json', { kind: 'schema', className: 'Post' }],
    ['_Join:users:_Role.0.jsonl', { kind: 'join', column: 'users', owningClass: '_Role', format: 'jsonl' }],
    ['_Join:likes:Post.json', { kind: 'join', column: 'likes', owningClass: 'Post', format: 'json' }],
    ['README.md', undefined],
    ['._Post.0.jsonl', undefined],
    ['Po st.0.jsonl', undefined],
    ['_Join:bad col:Post.0.jsonl', undefined],
  ];
  for (const [name, want] of cases) assert.deepEqual(classifyEntry(name), want, name);
});

test('header lines', () => {
  assert.deepEqual(parseHeader('#filetype:JSON-streaming {"type":"Class","class":"_User"}'), { type: 'Class', class: '_User', relatedClass: undefined });
  assert.deepEqual(parseHeader('#filetype:JSON-streaming {"type":"Join","class":"_Join:a:B","relatedClass":"C"}'), { type: 'Join', class: '_Join:a:B', relatedClass: 'C' });
  assert.equal(parseHeader('# just a comment'), undefined);
  assert.equal(parseHeader('#filetype:JSON-streaming {broken'), undefined);
  assert.equal(parseHeader('#filetype:JSON-streaming [1]'), undefined);
});
